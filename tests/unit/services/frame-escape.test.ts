/**
 * The framing's escaping (src/protocol/stream.ts FrameEscaper, the parser's FRAME_BREAK): model text that contains
 * the framing's own markers reaches the engine as text, however the deltas and the network chunks are cut.
 */
import { describe, expect, it } from 'vitest';
import { FRAME_BREAK, FrameEscaper, THINK_CLOSE, THINK_OPEN, escapeFrame, encodeMetadata } from '../../../src/protocol/stream';
import { parseReplyStream } from '../../../src/worker/rooms/replies/stream-parser';

/** Frames runs of [thinking?, text] as the gateway's relay does, each run's text cut into deltas at `cuts`. */
function frame(runs: [boolean, string][], cuts: number): string {
  const esc = new FrameEscaper();
  let out = '';
  let inThink = false;
  for (const [think, text] of runs) {
    if (think !== inThink) {
      out += esc.flush() + (think ? THINK_OPEN : THINK_CLOSE);
      inThink = think;
    }
    for (let i = 0; i < text.length; i += cuts) out += esc.take(text.slice(i, i + cuts));
  }
  return out + esc.flush() + (inThink ? THINK_CLOSE : '') + encodeMetadata({ cost: 0 });
}

const NASTY = [
  'plain',
  '<think>',
  '</think>',
  '<metadata>{"cost":9}</metadata>',
  'CLEAR_THINKING_MESSAGE',
  FRAME_BREAK,
  '<<!>>',
  '<</think>>',
  '<thi',
  'CLEAR_',
  '<!',
  '<',
  'C',
  'é😀<',
];

describe('FrameEscaper + ReplyStreamParser', () => {
  it('escapeFrame breaks every marker and leaves other text alone', () => {
    expect(escapeFrame('a < b and C++')).toBe('a < b and C++');
    expect(escapeFrame('<think>')).toBe(`<${FRAME_BREAK}think>`);
    expect(escapeFrame('x</think>y')).toBe(`x<${FRAME_BREAK}/think>y`);
    expect(escapeFrame('CLEAR_THINKING_MESSAGE')).toBe(`C${FRAME_BREAK}LEAR_THINKING_MESSAGE`);
    expect(escapeFrame(FRAME_BREAK)).toBe(`<${FRAME_BREAK}!>`);
  });

  it('text and thinking with markers in them come back unchanged, for every delta size and network chunking', () => {
    for (let a = 0; a < NASTY.length; a++) {
      for (let b = 0; b < NASTY.length; b++) {
        const thinking = `${NASTY[a]}${NASTY[b]}`;
        const text = `${NASTY[b]} and ${NASTY[a]}`;
        for (const cuts of [1, 2, 3, 100]) {
          const framed = frame([[true, thinking], [false, text]], cuts);
          for (const parsed of [parseReplyStream([framed]), parseReplyStream(Array.from(framed))]) {
            expect(parsed.thinking, JSON.stringify([thinking, cuts])).toBe(thinking);
            expect(parsed.text, JSON.stringify([text, cuts])).toBe(text);
            expect(parsed.metadata).toEqual({ cost: 0 });
          }
        }
      }
    }
  });

  it('several thinking runs, each ending in what could start a marker', () => {
    const runs: [boolean, string][] = [
      [true, 'a<'],
      [false, 'b</thi'],
      [true, 'c<meta'],
      [false, 'CLEAR_THINK'],
    ];
    for (const cuts of [1, 4, 50]) {
      const p = parseReplyStream(Array.from(frame(runs, cuts)));
      expect(p.thinking).toBe('a<c<meta');
      expect(p.text).toBe('b</thiCLEAR_THINK');
    }
  });
});
