import { describe, expect, it } from 'vitest';
import { SPEECH_CHUNK_CHARS } from '../../../src/protocol/speech-catalogue';
import { FIRST_SPEECH_CHUNK_CHARS, speakable, speechChunks, splitSpeech, stripThinking } from '../../../src/worker/rooms/speech/text';

const codePoints = (s: string): number => [...s].length;

describe('splitSpeech', () => {
  it('keeps a text of at most 3900 characters whole', () => {
    const text = 'a'.repeat(3899) + '.';
    expect(splitSpeech(text)).toEqual([text]);
  });

  it('splits at 3900 characters at most, on sentence boundaries', () => {
    const sentence = 'This sentence has exactly fifty characters in it. ';
    const text = sentence.repeat(200).trim(); // 10,000 characters
    const chunks = splitSpeech(text);
    expect(chunks.length).toBe(3);
    for (const c of chunks) {
      expect(codePoints(c)).toBeLessThanOrEqual(SPEECH_CHUNK_CHARS);
      expect(c.endsWith('.')).toBe(true);
      expect(c.startsWith('This')).toBe(true);
    }
    expect(chunks.join(' ')).toBe(text);
    expect(codePoints(chunks[0] as string)).toBe(3899); // 78 whole sentences, without the trailing space
  });

  it('cuts after ! and ? and a closing quote, and at a space when a sentence is longer than a chunk', () => {
    const text = `${'word '.repeat(800)}ends here! "Quoted?" ${'x'.repeat(10)}`;
    const chunks = splitSpeech(text, 3900);
    expect(chunks[0]?.endsWith('word')).toBe(true);
    expect(chunks.every((c) => codePoints(c) <= 3900)).toBe(true);
    expect(splitSpeech('One! Two? "Three." Four', 12)).toEqual(['One! Two?', '"Three."', 'Four']);
  });

  it('never splits a multibyte character: emoji and CJK chunks stay whole', () => {
    const emoji = '🙂'.repeat(9000); // 18,000 UTF-16 units, no spaces
    const chunks = splitSpeech(emoji);
    expect(chunks.map(codePoints)).toEqual([3900, 3900, 1200]);
    expect(chunks.join('')).toBe(emoji);
    expect(chunks.every((c) => !/[\uD800-\uDBFF]$/.test(c))).toBe(true);
    const cjk = '你好世界。'.repeat(2000); // 10,000 characters, sentences end with 。
    const parts = splitSpeech(cjk);
    expect(parts.every((p) => p.endsWith('。') && codePoints(p) <= 3900)).toBe(true);
    expect(parts.join('')).toBe(cjk);
  });

  it('the pipeline makes its first chunk short (playback starts sooner), the rest at 3900', () => {
    const text = 'This sentence has exactly fifty characters in it. '.repeat(200).trim();
    const chunks = speechChunks(text);
    expect(chunks.map(codePoints)).toEqual([999, 3899, 3899, 1199]);
    expect(codePoints(chunks[0] as string)).toBeLessThanOrEqual(FIRST_SPEECH_CHUNK_CHARS);
    expect(chunks.join(' ')).toBe(text);
  });

  it('is linear: a megabyte with no boundary splits quickly and completely', () => {
    const text = 'x'.repeat(1_000_000);
    const chunks = splitSpeech(text);
    expect(chunks.length).toBe(Math.ceil(1_000_000 / 3900));
  });
});

describe('thinking and markdown', () => {
  it('strips thinking blocks, closed or not, in any case', () => {
    expect(stripThinking('<think>plan</think>Answer.')).toBe('Answer.');
    expect(stripThinking('A <THINKING>x</THINKING>B <reasoning>y</reasoning>C')).toBe('A B C');
    expect(stripThinking('Visible. <think>never closed')).toBe('Visible. ');
    // Many unclosed openers stay linear (no catastrophic rescans).
    expect(stripThinking(`ok${'<think>'.repeat(50_000)}`)).toBe('ok');
  });

  it('reads Markdown as words', () => {
    const md = '# Title\n\n- **Bold** item with [a link](https://x.test)\n```js\nconst a = 1;\n```\n| a | b |\n|---|---|\n<think>secret</think>Done.';
    const spoken = speakable(md);
    expect(spoken).toContain('Title');
    expect(spoken).toContain('Bold item with a link');
    expect(spoken).not.toContain('https://');
    expect(spoken).not.toContain('```');
    expect(spoken).not.toContain('secret');
    expect(spoken).toContain('Done.');
  });
});
