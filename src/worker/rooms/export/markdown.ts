/**
 * Markdown export (.md): the conversation's name as the title, then each message under a heading line with its
 * role, model and time. A message's text is Markdown already (code fences, tables, $ math): it is written as is,
 * so code blocks and math stay exactly as the model wrote them. Hostile Markdown (src/protocol/markdown-guard.ts:
 * nesting thousands deep, runs that make a parser slow) would hang or crash whatever opens the file next: such a
 * message is written as plain text instead (an indented code block, which no Markdown reader parses further),
 * under a note.
 */
import { tameMarkdown } from '../../../protocol/markdown-guard';
import { unformattedNote } from '../../../protocol/markdown-note';
import { messageHeading, messageImages, messageSources, messageText, type ExportSource } from './model';

/** Escapes what would turn a plain line into Markdown structure (the title is the user's words, not Markdown). */
function plainLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/([\\`*_[\]#<>|])/g, '\\$1');
}

/** The Markdown file's text. `source` is what `checkExportable` returned. */
export function toMarkdown(source: ExportSource): string {
  const out: string[] = [`# ${plainLine(source.conversation.name)}`, ''];
  for (const m of source.messages) {
    out.push(`### ${plainLine(messageHeading(m))}`, '');
    const text = messageText(m).replace(/\s+$/, '');
    if (text !== '' && tameMarkdown(text).tamed) {
      out.push(`*${unformattedNote(m.role)}*`, '', text.replace(/^/gm, '    '), '');
    } else if (text !== '') out.push(text, '');
    for (const image of messageImages(m)) {
      // Inline data stays out of the text (it can be megabytes); the JSON export carries it.
      out.push('url' in image ? `![image](<${image.url}>)` : '*[image: inline data, in the JSON export]*', '');
    }
    const sources = messageSources(m);
    if (sources.length > 0) {
      out.push('Sources:', '');
      for (const c of sources) out.push(`${c.n}. [${plainLine(c.title)}](<${c.url.replace(/[<>\s]/g, encodeURIComponent)}>)`);
      out.push('');
    }
    out.push('---', '');
  }
  return out.join('\n');
}
