import { describe, expect, it } from 'vitest';
import { MultiStreamParser, parseMultiLine } from '../../../src/worker/rooms/multimodel/multi-stream';

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s);

describe('multi-model line parser', () => {
  it('routes interleaved lines of several models in order', () => {
    const p = new MultiStreamParser(['a', 'b']);
    const text = [
      { modelId: 'a', chunk: 'Hel' },
      { modelId: 'b', chunk: 'Bon' },
      { modelId: 'a', chunk: 'lo' },
      { modelId: 'b', metadata: { cost: 0.5, outputTokens: 3 }, isMetadata: true },
      { modelId: 'b', complete: true },
      { modelId: 'a', complete: true },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const events = [...p.push(bytes(`${text}\n`)), ...p.finish()];
    expect(events).toEqual([
      { kind: 'chunk', modelId: 'a', text: 'Hel' },
      { kind: 'chunk', modelId: 'b', text: 'Bon' },
      { kind: 'chunk', modelId: 'a', text: 'lo' },
      { kind: 'metadata', modelId: 'b', metadata: { cost: 0.5, outputTokens: 3 } },
      { kind: 'complete', modelId: 'b' },
      { kind: 'complete', modelId: 'a' },
    ]);
  });

  it('joins a line split at every byte, including inside a multi-byte character', () => {
    const line = `${JSON.stringify({ modelId: 'a', chunk: 'héllo 👋 "quoted"\n' })}\n`;
    const all = bytes(line + line);
    const p = new MultiStreamParser(['a']);
    const events = [];
    for (let i = 0; i < all.length; i++) events.push(...p.push(all.subarray(i, i + 1)));
    events.push(...p.finish());
    expect(events).toEqual([
      { kind: 'chunk', modelId: 'a', text: 'héllo 👋 "quoted"\n' },
      { kind: 'chunk', modelId: 'a', text: 'héllo 👋 "quoted"\n' },
    ]);
  });

  it('reports a broken line as malformed and keeps the lines around it', () => {
    const p = new MultiStreamParser(['a', 'b']);
    const events = [...p.push(bytes('{"modelId":"a","chunk":"one"}\n{"modelId":"b","chu\n{"modelId":"a","chunk":"two"}\n')), ...p.finish()];
    expect(events.map((e) => e.kind)).toEqual(['chunk', 'malformed', 'chunk']);
    expect(events[1]).toMatchObject({ kind: 'malformed', reason: 'not JSON' });
    expect(events[2]).toEqual({ kind: 'chunk', modelId: 'a', text: 'two' });
  });

  it('refuses lines of a model that was not asked for, without modelId, or of no known shape', () => {
    expect(parseMultiLine('{"modelId":"zzz","chunk":"x"}', new Set(['a']))).toMatchObject({ kind: 'malformed', reason: "model 'zzz' was not asked for" });
    expect(parseMultiLine('{"chunk":"x"}', null)).toMatchObject({ kind: 'malformed', reason: 'no modelId' });
    expect(parseMultiLine('[1,2]', null)).toMatchObject({ kind: 'malformed' });
    expect(parseMultiLine('{"modelId":"a","isMetadata":true,"metadata":"x"}', null)).toMatchObject({ kind: 'malformed' });
    expect(parseMultiLine('{"modelId":"a","something":1}', null)).toMatchObject({ kind: 'malformed', reason: 'unknown line' });
    expect(parseMultiLine('   ', null)).toBeNull();
  });

  it('reads error lines with their status and code', () => {
    expect(parseMultiLine('{"modelId":"a","error":"Insufficient balance","isError":true,"status":402,"code":"INSUFFICIENT_BALANCE"}', null)).toEqual({
      kind: 'error',
      modelId: 'a',
      error: 'Insufficient balance',
      status: 402,
      code: 'INSUFFICIENT_BALANCE',
    });
    expect(parseMultiLine('{"modelId":"a","isError":true}', null)).toEqual({ kind: 'error', modelId: 'a', error: 'The model failed' });
  });

  it('keeps only well-typed metadata fields', () => {
    const e = parseMultiLine('{"modelId":"a","isMetadata":true,"metadata":{"cost":"1","paymentSource":"EUR","isPartial":true,"error":"cut"}}', null);
    expect(e).toEqual({ kind: 'metadata', modelId: 'a', metadata: { isPartial: true, error: 'cut' } });
  });

  it('takes a last line without its newline at the end of the stream', () => {
    const p = new MultiStreamParser(null);
    expect(p.push(bytes('{"modelId":"a","complete":true}'))).toEqual([]);
    expect(p.finish()).toEqual([{ kind: 'complete', modelId: 'a' }]);
  });
});
