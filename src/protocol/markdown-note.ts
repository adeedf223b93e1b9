/**
 * The note above a message shown as plain text because its Markdown could not be formatted (hostile Markdown,
 * src/protocol/markdown-guard.ts, or a parse past its budget). Its own module: the page shell shows it without
 * loading the Markdown code.
 */
export function unformattedNote(role: string): string {
  return `This ${role === 'assistant' ? 'reply' : 'message'} could not be formatted, so it is shown as plain text.`;
}
