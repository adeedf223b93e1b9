/**
 * The hostile replies of issue 15 (items 2 and 10), shared by the unit tests, the browser tests and the benchmark.
 * `marker`: words of the reply that must show however it is rendered.
 */
export interface HostileReply {
  name: string;
  text: string;
  marker: string;
}

export const HOSTILE_REPLIES: readonly HostileReply[] = [
  { name: '3,000 ">"', text: `${'>'.repeat(3000)} deep quote end`, marker: 'deep quote end' },
  { name: '"- " repeated 3,000 times', text: `${'- '.repeat(3000)}deep item end`, marker: 'deep item end' },
  { name: '15,000 "_" around a letter', text: `${'_'.repeat(15000)}Q${'_'.repeat(15000)}`, marker: '_Q_' },
  { name: '20,000 unclosed "[x]("', text: `${'[x]('.repeat(20000)} links end`, marker: 'links end' },
  {
    name: 'a list indented 1,000 levels deep',
    text: Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`).join('\n'),
    marker: 'level 1000',
  },
];
