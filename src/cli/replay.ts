/**
 * npm run replay -- FILE [--conversation SLUG] [--json]
 *
 * Reads an exported NDJSON event log, decodes and upcasts it, folds it with the same projection code the worker
 * runs, and prints the read models: every conversation with its messages (summary), or one conversation in full.
 * With --json the output is machine-readable. Exit status: 0 ok, 1 bad file or unknown conversation, 2 usage.
 * (This command is the one impure file of src/events: it reads a file and prints.)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { iterateLog, LogFormatError } from '../events/codec';
import type { NewEvent, StoredEvent } from '../events/catalogue';
import type { MessageRow } from '../events/model';
import { fold, readModels } from '../projections/fold';
import type { ConversationWithMessages } from '../projections/fold';
import { firstChars, promptText } from '../projections/projection';

const USAGE = 'usage: npm run replay -- FILE [--conversation SLUG] [--json]';

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms));
const oneLine = (s: string, n: number) => firstChars(s.replace(/\s+/g, ' ').trim(), n);

function describeMessage(m: MessageRow, full: boolean): string {
  const text = promptText(m.prompt);
  const flags = [
    m.hasError ? `error: ${m.error ?? ''}` : '',
    m.isPartial ? 'partial' : '',
    m.interrupted ? `interrupted: ${m.error ?? ''}` : '',
    m.cost !== undefined ? `cost ${m.cost}${m.paymentSource ? ` ${m.paymentSource}` : ''}` : '',
    m.outputTokens !== undefined ? `${m.outputTokens} tokens` : '',
    m.alternativeGroup !== null ? `branch ${m.alternativeGroup}#${m.branchIndex}${m.isActiveBranch ? ' active' : ''}` : '',
  ].filter((s) => s !== '');
  const head = `  #${m.id} ${iso(m.timestamp)} ${m.role.padEnd(9)} [${m.status}] ${m.model}${flags.length ? ` (${flags.join(', ')})` : ''}`;
  if (!full) return `${head}\n      ${oneLine(text, 100) || '(empty)'}`;
  const body = text === '' ? '(empty)' : text;
  const thinking = m.thinking ? `\n    thinking: ${m.thinking.split('\n').join('\n      ')}` : '';
  return `${head}${thinking}\n    ${body.split('\n').join('\n    ')}`;
}

function describeConversation(c: ConversationWithMessages, full: boolean): string {
  const conv = c.conversation;
  const lines = [
    `${conv.slug}  "${conv.name}"  (${c.messages.length} messages, created ${iso(conv.createdAt)}, updated ${iso(conv.updatedAt)})`,
  ];
  if (!full) {
    if (conv.latestMessage) lines.push(`  latest: ${oneLine(conv.latestMessage, 100)}`);
    const shown = c.messages.slice(-3);
    if (c.messages.length > shown.length) lines.push(`  ... ${c.messages.length - shown.length} earlier messages`);
    for (const m of shown) lines.push(describeMessage(m, false));
  } else {
    lines.push(`  uuid ${conv.uuid}, id ${conv.id}${conv.isMediaOnly ? ', media only' : ''}`);
    for (const m of c.messages) lines.push(describeMessage(m, true));
  }
  return lines.join('\n');
}

function main(): void {
  let args: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: { conversation: { type: 'string', short: 'c' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  }
  try {
    args = parse();
  } catch (e) {
    fail(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`, 2);
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const file = args.positionals[0];
  if (file === undefined || args.positionals.length > 1) fail(USAGE, 2);

  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    fail(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`, 1);
  }
  // Streamed: each line is decoded, validated, upcast and folded, then dropped (large logs fit in memory).
  const counts: Record<string, number> = {};
  let eventCount = 0;
  function* counted(events: Iterable<NewEvent | StoredEvent>) {
    for (const e of events) {
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      eventCount++;
      yield e;
    }
  }
  let header: ReturnType<typeof iterateLog>['header'];
  let models: ReturnType<typeof readModels>;
  try {
    const stream = iterateLog(text);
    header = stream.header;
    models = readModels(fold(counted(stream.events)));
  } catch (e) {
    if (e instanceof LogFormatError) fail(`${file}: not a valid Parley event log: ${e.message}`, 1);
    throw e;
  }
  const slug = args.values.conversation;

  if (slug !== undefined) {
    const found = models.conversations.find((c) => c.conversation.slug === slug);
    if (found === undefined) {
      const known = models.conversations.slice(0, 10).map((c) => c.conversation.slug).join(', ');
      fail(`${file}: no conversation with slug '${slug}'${known ? ` (some known: ${known})` : ' (the log has no conversations)'}`, 1);
    }
    process.stdout.write(args.values.json ? `${JSON.stringify(found, null, 2)}\n` : `${describeConversation(found, true)}\n`);
    return;
  }

  const messageCount = models.conversations.reduce((n, c) => n + c.messages.length, 0) + models.orphanMessages.length;
  if (args.values.json) {
    process.stdout.write(`${JSON.stringify({ header, eventCounts: counts, ...models }, null, 2)}\n`);
    return;
  }
  const out = [
    `Parley event log ${file}`,
    `  format v${header.version}, schema ${header.schema}, exported ${iso(header.exportedAt)}, ${eventCount} events`,
    `  ${Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', ') || 'no events'}`,
    `Read models: ${models.conversations.length} conversations, ${messageCount} messages`,
    '',
    ...models.conversations.map((c) => describeConversation(c, false)),
  ];
  if (models.orphanMessages.length > 0) {
    out.push('', `${models.orphanMessages.length} messages belong to no conversation in the log:`);
    for (const m of models.orphanMessages.slice(0, 20)) out.push(describeMessage(m, false));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main();
