import { describe, expect, it } from 'vitest';
import { defaultName, makeSlug } from '../../../src/worker/infra/ids';

const bytes = (...v: number[]) => new Uint8Array(v);
const zeros = new Uint8Array(7);

describe('conversation slugs (spec 001 section 9: up to 8 words plus a 7-character random id)', () => {
  it('takes at most 8 words, lower case, then the id', () => {
    expect(makeSlug('One two three four five six seven eight nine ten', zeros)).toBe('one-two-three-four-five-six-seven-eight-aaaaaaa');
  });

  it('the id is 7 characters of a-z0-9 drawn from the random bytes', () => {
    const slug = makeSlug('Hello', bytes(0, 1, 25, 26, 35, 36, 71));
    expect(slug).toBe('hello-abz09a9');
    expect(slug.split('-').at(-1)).toMatch(/^[a-z0-9]{7}$/);
  });

  it('drops punctuation and accents, keeping words URL-safe', () => {
    expect(makeSlug('Café, naïve résumé? C++ & "quotes"!', zeros)).toBe('cafe-naive-resume-c-quotes-aaaaaaa');
    expect(makeSlug('multi-part words', zeros)).toBe('multi-part-words-aaaaaaa');
  });

  it('is just the id when no word survives', () => {
    expect(makeSlug('!!! ???', zeros)).toBe('aaaaaaa');
    expect(makeSlug('日本語', zeros)).toBe('aaaaaaa');
  });
});

describe('default conversation name (spec 000 section 3: the first 10 words)', () => {
  it('keeps the first 10 words, whitespace collapsed', () => {
    expect(defaultName('  one two\tthree\nfour five six seven eight nine ten eleven twelve ')).toBe('one two three four five six seven eight nine ten');
    expect(defaultName('short prompt')).toBe('short prompt');
  });
});
