/**
 * Conversation titles without a model: the offline engine's deterministic title (issue 6 item 7). A few salient
 * words of the conversation's opening, in their order, at most TITLE_MAX_CHARS characters. Pure: the same content
 * always gives the same title, so tests and the offline app can rely on it.
 */
import { TITLE_MAX_CHARS } from '../../protocol/api';

/** Salient words kept in a deterministic title. */
export const TITLE_WORDS = 6;

// Words that carry no topic. Kept short: a few dozen of the commonest English function words and chat fillers.
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can could do does for from had has have how i if in into is it its just let me ' +
    'my of on or our please should so some tell than that the their them then there these they this to us was ' +
    'we what when where which who why will with would you your yours about explain give show write make help ' +
    'user assistant hi hello hey thanks thank want need like know'
  ).split(' '),
);

/** The opening text to title: role labels ("User:", "Assistant:") dropped; the first user turn when labelled. */
function openingText(content: string): string {
  const turns = content.split(/\n{2,}(?=(?:User|Assistant):)/);
  const firstUser = turns.find((t) => t.startsWith('User:'));
  return (firstUser ?? content).replace(/^(User|Assistant):\s*/gm, '');
}

/** Uppercase the first letter (locale-independent). */
function capitalise(s: string): string {
  return s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1);
}

export function deterministicTitle(content: string): string {
  const words = openingText(content).match(/[\p{L}\p{N}][\p{L}\p{N}'’+#.-]*/gu) ?? [];
  const cleaned = words.map((w) => w.replace(/[.'’-]+$/u, '')).filter((w) => w.length > 0);
  const salient: string[] = [];
  const seen = new Set<string>();
  for (const w of cleaned) {
    const key = w.toLowerCase();
    if (STOPWORDS.has(key) || seen.has(key) || (key.length < 2 && !/\p{N}/u.test(key))) continue;
    seen.add(key);
    salient.push(w);
    if (salient.length >= TITLE_WORDS) break;
  }
  const chosen = salient.length > 0 ? salient : cleaned.slice(0, TITLE_WORDS);
  const title = capitalise(chosen.join(' '));
  return title.length > 0 ? clampTitle(title) : 'New conversation';
}

/** A title as sent: one line, no wrapping quotes or trailing period, at most TITLE_MAX_CHARS characters. */
export function clampTitle(raw: string): string {
  let t = (raw.split('\n').find((line) => line.trim() !== '') ?? '').trim();
  const unquote = (x: string): string => x.replace(/^["'“”‘’*#\s]+|["'“”‘’*\s]+$/gu, '');
  t = unquote(unquote(t).replace(/^(title|summary)\s*:\s*/i, '')).replace(/\.$/, '').trim();
  const chars = [...t];
  if (chars.length <= TITLE_MAX_CHARS) return t;
  const cut = chars.slice(0, TITLE_MAX_CHARS).join('');
  const space = cut.lastIndexOf(' ');
  return (space > TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trim();
}
