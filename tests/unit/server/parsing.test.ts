import { describe, expect, it } from 'vitest';
import { AmountError, ceilDiv, formatNanoRaw, formatNanoRawCeil, formatPrice, formatUsdMicro, parseDecimal, replyCostMicro, usdMicroToNanoRaw } from '../../../src/server/money/amounts';
import { chunkEvents, upstreamError } from '../../../src/server/providers/openai';
import { SseParser, SseTooLargeError } from '../../../src/server/providers/sse';
import { UpstreamStreamError, type ProviderEvent } from '../../../src/server/providers/types';
import { scaling } from './scaling';

describe('money', () => {
  it('parses decimals to integer units without rounding', () => {
    expect(parseDecimal('5', 6)).toBe(5_000_000n);
    expect(parseDecimal('0.25', 6)).toBe(250_000n);
    expect(parseDecimal('0.000001', 6)).toBe(1n);
    expect(parseDecimal(' 12.5 ', 6)).toBe(12_500_000n);
    expect(parseDecimal('1', 30)).toBe(10n ** 30n);
    for (const bad of ['', '-1', '1e3', '1.', '.5', 'abc', '1,5', '0.0000001', 'NaN']) {
      expect(() => parseDecimal(bad, 6), bad).toThrow(AmountError);
    }
  });

  it('formats with 6 decimals, flooring nano', () => {
    expect(formatUsdMicro(0n)).toBe('0.000000');
    expect(formatUsdMicro(1_234_567n)).toBe('1.234567');
    expect(formatNanoRaw(10n ** 30n)).toBe('1.000000');
    expect(formatNanoRaw(10n ** 24n - 1n)).toBe('0.000000');
    expect(formatNanoRawCeil(1n)).toBe('0.000001');
    expect(formatNanoRawCeil(10n ** 25n)).toBe('0.000010');
    expect(formatPrice(150_000n)).toBe('0.15');
    expect(formatPrice(3_000_000n)).toBe('3');
    expect(formatPrice(10_000_000n)).toBe('10');
    expect(formatPrice(0n)).toBe('0');
  });

  it('costs round up to the next micro-dollar', () => {
    const price = { inputMicroPerM: 150_000n, outputMicroPerM: 600_000n }; // 0.15 / 0.60 USD per 1M
    expect(replyCostMicro(price, 1_000_000, 1_000_000)).toBe(750_000n);
    expect(replyCostMicro(price, 1, 0)).toBe(1n); // 0.15 micro -> 1
    expect(replyCostMicro(price, 0, 0)).toBe(0n);
    expect(ceilDiv(10n, 3n)).toBe(4n);
    expect(usdMicroToNanoRaw(7_500n, 1_000_000n)).toBe(75n * 10n ** 26n);
    expect(usdMicroToNanoRaw(1n, 3_000_000n)).toBe(333_333_333_333_333_333_333_334n);
  });
});

describe('SSE parser', () => {
  it('parses OpenAI data lines split anywhere, with LF, CRLF or CR endings', () => {
    const stream = 'data: {"a":1}\n\n: keep-alive\n\ndata: {"b":2}\r\n\r\nevent: error\ndata: oops\r\rdata: [DONE]\n\n';
    const expected = [
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: '{"b":2}' },
      { event: 'error', data: 'oops' },
      { event: 'message', data: '[DONE]' },
    ];
    for (let size = 1; size <= stream.length; size++) {
      const p = new SseParser();
      const got = [];
      for (let i = 0; i < stream.length; i += size) got.push(...p.push(stream.slice(i, i + size)));
      got.push(...p.flush());
      expect(got, `chunk size ${size}`).toEqual(expected);
    }
  });

  it('joins multi-line data and handles a last event without a blank line', () => {
    const p = new SseParser();
    expect(p.push('data: one\ndata:two\n\ndata: last')).toEqual([{ event: 'message', data: 'one\ntwo' }]);
    expect(p.flush()).toEqual([{ event: 'message', data: 'last' }]);
  });
});

describe('SSE parser: linear and bounded', () => {
  it('reads a 5 MB data line arriving in 16 KB chunks, the events around it intact', () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const stream = `data: {"a":1}\n\ndata: ${big}\n\ndata: [DONE]\n\n`;
    const p = new SseParser();
    const got = [];
    for (let i = 0; i < stream.length; i += 16 * 1024) got.push(...p.push(stream.slice(i, i + 16 * 1024)));
    got.push(...p.flush());
    expect(got.length).toBe(3);
    expect(got[0]).toEqual({ event: 'message', data: '{"a":1}' });
    expect(got[1]?.data.length).toBe(big.length);
    expect(got[1]?.data === big).toBe(true);
    expect(got[2]).toEqual({ event: 'message', data: '[DONE]' });
  });

  it('costs linear time in the line however it is split: 8× the bytes in 16 KB chunks cost about 8× (a rescan, 64×)', () => {
    const chunked = (bytes: number): string[] => {
      const stream = `data: ${'x'.repeat(bytes)}\n\n`;
      const chunks: string[] = [];
      for (let i = 0; i < stream.length; i += 16 * 1024) chunks.push(stream.slice(i, i + 16 * 1024));
      return chunks;
    };
    const parse = (chunks: string[]): number => {
      const p = new SseParser();
      let events = 0;
      for (const c of chunks) events += p.push(c).length;
      return events + p.flush().length;
    };
    expect(parse(chunked(1000))).toBe(1);
    const r = scaling(chunked, parse, 640 * 1024, 8);
    expect(r.ratio, `CPU µs ${r.small.toFixed(0)} -> ${r.large.toFixed(0)}`).toBeLessThan(20);
  });

  it('drops a byte-order mark at the start of the stream, even alone in the first chunk', () => {
    const p = new SseParser();
    expect(p.push('\uFEFFdata: first\n\n')).toEqual([{ event: 'message', data: 'first' }]);
    expect(p.push('data: \uFEFFkept\n\n')).toEqual([{ event: 'message', data: '\uFEFFkept' }]);
    const q = new SseParser();
    expect(q.push('')).toEqual([]);
    expect(q.push('\uFEFF')).toEqual([]);
    expect(q.push('data: one\n\n')).toEqual([{ event: 'message', data: 'one' }]);
  });

  it('refuses an event past its size cap instead of buffering on', () => {
    const p = new SseParser(1000);
    expect(() => {
      for (let i = 0; i < 10; i++) p.push(`data: ${'y'.repeat(200)}`);
    }).toThrow(SseTooLargeError);
    expect(() => p.push('data: more\n\n')).toThrow('larger than 1000 characters');
  });
});

describe('OpenAI chunk reading', () => {
  it('reads content, reasoning, reasoning_content, usage and finish_reason', () => {
    const out: ProviderEvent[] = [];
    expect(chunkEvents({ choices: [{ delta: { role: 'assistant', content: '' } }] }, out)).toBe(false);
    chunkEvents({ choices: [{ delta: { reasoning: 'r1' } }] }, out);
    chunkEvents({ choices: [{ delta: { reasoning_content: 'r2', content: null } }] }, out);
    chunkEvents({ choices: [{ delta: { content: 'c' } }] }, out);
    expect(chunkEvents({ choices: [{ delta: {}, finish_reason: 'stop' }] }, out)).toBe(true);
    chunkEvents({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }, out);
    chunkEvents({ choices: [], usage: { prompt_tokens: -1, completion_tokens: 'x' } }, out);
    chunkEvents('garbage', out);
    chunkEvents({ choices: 'x' }, out);
    expect(out).toEqual([
      { type: 'reasoning', text: 'r1' },
      { type: 'reasoning', text: 'r2' },
      { type: 'content', text: 'c' },
      { type: 'usage', inputTokens: 3, outputTokens: 4 },
    ]);
    expect(() => chunkEvents({ error: { message: 'boom' } }, [])).toThrow(UpstreamStreamError);
  });

  it('an image model\'s deltas become JSON lines: text, data-URL images, a link named not fetched, no reasoning', () => {
    const out: ProviderEvent[] = [];
    chunkEvents({ choices: [{ delta: { role: 'assistant', content: 'Here ', reasoning: 'drawing' } }] }, out, true);
    chunkEvents(
      {
        choices: [
          {
            delta: {
              content: 'it is',
              images: [
                { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
                { type: 'image_url', image_url: { url: 'https://cdn.example/x.png' } },
                { type: 'image_url', image_url: { url: 'data:image/png,notbase64' } },
                { type: 'image_url' },
                'junk',
              ],
            },
          },
        ],
      },
      out,
      true,
    );
    const lines = out.map((e) => (e.type === 'content' ? e.text : `<${e.type}>`));
    expect(lines.every((l) => l.endsWith('\n'))).toBe(true);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { type: 'text', text: 'Here ' },
      { type: 'text', text: 'it is' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'text', text: expect.stringContaining('https://cdn.example/x.png') as unknown },
      { type: 'text', text: expect.stringContaining('data:image/png,notbase64') as unknown },
    ]);
    // The same chunk for a plain model: text as it is, reasoning kept, images ignored.
    const plain: ProviderEvent[] = [];
    chunkEvents({ choices: [{ delta: { content: 'it is', reasoning: 'r', images: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] } }] }, plain);
    expect(plain).toEqual([
      { type: 'reasoning', text: 'r' },
      { type: 'content', text: 'it is' },
    ]);
  });

  it('normalises upstream error bodies', () => {
    expect(upstreamError(429, JSON.stringify({ error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } }))).toEqual({
      error: 'rate_limit_exceeded',
      message: 'slow down',
    });
    expect(upstreamError(400, JSON.stringify({ error: { message: 'bad', type: 'invalid_request_error', code: null } }))).toEqual({
      error: 'invalid_request_error',
      message: 'bad',
    });
    expect(upstreamError(404, JSON.stringify({ error: 'model "x" not found' }))).toEqual({ error: 'UPSTREAM_404', message: 'model "x" not found' });
    expect(upstreamError(422, JSON.stringify({ detail: 'nope' }))).toEqual({ error: 'UPSTREAM_422', message: 'nope' });
    expect(upstreamError(502, '<html>Bad gateway</html>')).toEqual({ error: 'UPSTREAM_502', message: '<html>Bad gateway</html>' });
    expect(upstreamError(500, '')).toEqual({ error: 'UPSTREAM_500', message: 'The model provider answered with HTTP 500' });
  });
});
