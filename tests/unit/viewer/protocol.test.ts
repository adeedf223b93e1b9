import { describe, expect, it } from 'vitest';
import { viewerLanguage } from '../../../src/viewer/language';
import {
  isRunRequest,
  isWorkerMessage,
  OUTPUT_FLUSH_CHARS,
  OUTPUT_FLUSH_MS,
  OUTPUT_LIMIT_CHARS,
  OUTPUT_TRUNCATED,
  OutputBuffer,
  type OutputChunk,
} from '../../../src/viewer/protocol';

describe('viewer message protocol', () => {
  it('accepts the worker messages of the protocol, exactly', () => {
    const good = [
      { type: 'ready', version: '314.0.7', ms: 1200 },
      { type: 'loadFailed', error: 'HTTP 404' },
      { type: 'output', id: 1, stream: 'stdout', text: 'hi\n' },
      { type: 'output', id: 1, stream: 'stderr', text: '' },
      { type: 'done', id: 1, ok: true, result: null, ms: 3 },
      { type: 'done', id: 1, ok: true, result: "{'a': 1}", ms: 3 },
      { type: 'done', id: 2, ok: false, error: 'Traceback ...', ms: 3 },
      { type: 'done', id: 2, ok: false, error: 'RuntimeError: unreachable', ms: 3, fatal: true },
    ];
    for (const m of good) expect(isWorkerMessage(m), JSON.stringify(m)).toBe(true);
    const bad = [
      null,
      'ready',
      [],
      { type: 'ready', ms: 1 },
      { type: 'output', id: 1, stream: 'stdin', text: 'x' },
      { type: 'output', id: -1, stream: 'stdout', text: 'x' },
      { type: 'output', id: 1.5, stream: 'stdout', text: 'x' },
      { type: 'done', id: 1, ok: true, ms: 1 },
      { type: 'done', id: 1, ok: false, ms: 1 },
      { type: 'done', id: 1, ok: false, error: 'x', ms: 1, fatal: 'yes' },
      { type: 'done', id: 1, ok: 'true', result: null, ms: 1 },
      { type: 'done', id: 1, ok: true, result: null, ms: Number.NaN },
      { type: 'eval', code: 'x' },
    ];
    for (const m of bad) expect(isWorkerMessage(m), JSON.stringify(m)).toBe(false);
  });

  it('the worker takes only well-formed run requests', () => {
    expect(isRunRequest({ type: 'run', id: 3, code: 'print(1)' })).toBe(true);
    expect(isRunRequest({ type: 'run', id: 3 })).toBe(false);
    expect(isRunRequest({ type: 'run', id: '3', code: '' })).toBe(false);
    expect(isRunRequest({ type: 'exec', id: 3, code: '' })).toBe(false);
  });
});

describe('output buffer', () => {
  function buffer() {
    let now = 0;
    const sent: OutputChunk[][] = [];
    const b = new OutputBuffer((chunks) => sent.push(chunks.map((c) => ({ ...c }))), () => now);
    return { b, sent, tick: (ms: number) => (now += ms) };
  }

  it('batches writes, keeps order across streams, and sends on time, on size and at the end', () => {
    const { b, sent, tick } = buffer();
    b.write('stdout', 'a');
    b.write('stdout', 'b\n');
    b.write('stderr', 'warn\n');
    b.write('stdout', 'c');
    expect(sent).toEqual([]);
    tick(OUTPUT_FLUSH_MS);
    b.write('stdout', 'd');
    expect(sent).toEqual([[{ stream: 'stdout', text: 'ab\n' }, { stream: 'stderr', text: 'warn\n' }, { stream: 'stdout', text: 'cd' }]]);
    b.write('stdout', 'x'.repeat(OUTPUT_FLUSH_CHARS));
    expect(sent).toHaveLength(2);
    b.write('stdout', 'tail');
    b.flush();
    expect(sent[2]).toEqual([{ stream: 'stdout', text: 'tail' }]);
    b.flush();
    expect(sent).toHaveLength(3);
  });

  it('stops at the output limit with one truncation note, whatever the program goes on printing', () => {
    const { b, sent } = buffer();
    for (let i = 0; i < 100; i++) b.write('stdout', 'y'.repeat(10_000));
    b.flush();
    const all = sent.flat();
    const text = all.map((c) => c.text).join('');
    expect(text.length).toBe(OUTPUT_LIMIT_CHARS + OUTPUT_TRUNCATED.length);
    expect(all.at(-1)).toEqual({ stream: 'stderr', text: OUTPUT_TRUNCATED });
    expect(text.split(OUTPUT_TRUNCATED)).toHaveLength(2);
  });
});

describe('viewer language', () => {
  it('takes the block language it runs or previews, else the codeLanguage preference, else python', () => {
    expect(viewerLanguage('py', 'html')).toBe('python');
    expect(viewerLanguage('Python3', undefined)).toBe('python');
    expect(viewerLanguage('HTML', 'python')).toBe('html');
    expect(viewerLanguage('svg', 'python')).toBe('html');
    expect(viewerLanguage('javascript', 'html')).toBe('html');
    expect(viewerLanguage('', 'html')).toBe('html');
    expect(viewerLanguage('rust', undefined)).toBe('python');
    expect(viewerLanguage('', undefined)).toBe('python');
  });
});
