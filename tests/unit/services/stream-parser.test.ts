import { describe, expect, it } from 'vitest';
import { ReplyStreamParser, parseReplyStream, validateMetadata, type ParsedReply } from '../../../src/worker/rooms/replies/stream-parser';
import { recordedReplyStream } from '../../bench/fixtures/reply-stream';

const enc = new TextEncoder();

/** All the ways of cutting `s` into two pieces (every split point, including the empty ends). */
function twoWaySplits(s: string): string[][] {
  const out: string[][] = [];
  for (let k = 0; k <= s.length; k++) out.push([s.slice(0, k), s.slice(k)]);
  return out;
}

function threeWaySplits(s: string): string[][] {
  const out: string[][] = [];
  for (let a = 0; a <= s.length; a++) for (let b = a; b <= s.length; b++) out.push([s.slice(0, a), s.slice(a, b), s.slice(b)]);
  return out;
}

function byteSplits(bytes: Uint8Array): Uint8Array[][] {
  const out: Uint8Array[][] = [];
  for (let k = 0; k <= bytes.length; k++) out.push([bytes.subarray(0, k), bytes.subarray(k)]);
  return out;
}

const chars = (s: string): string[] => s.split('');

/** Like parseReplyStream, but reading the results after every chunk (the per-chunk path, no batching). */
function parseReadingEach(chunks: Iterable<Uint8Array | string>): ParsedReply {
  const p = new ReplyStreamParser();
  let seen = '';
  for (const c of chunks) {
    p.push(c);
    const t = p.text;
    // Text only ever grows while streaming: nothing shown is taken back.
    if (!t.startsWith(seen)) throw new Error(`text went back: ${JSON.stringify(seen)} -> ${JSON.stringify(t)}`);
    seen = t;
    void p.thinking;
  }
  p.finish();
  return { text: p.text, thinking: p.thinking, metadata: p.metadata, metadataError: p.metadataError, thinkingOpen: p.thinkingOpen };
}

/** Both ways of reading must agree. */
function parseBoth(chunks: Array<Uint8Array | string>): ParsedReply {
  const a = parseReplyStream(chunks);
  expect(parseReadingEach(chunks), JSON.stringify(chunks.map((c) => (typeof c === 'string' ? c : Array.from(c))))).toEqual(a);
  return a;
}

describe('ReplyStreamParser: whole streams', () => {
  it('an empty stream gives empty text and no metadata', () => {
    expect(parseReplyStream([])).toEqual({ text: '', thinking: '', metadata: null, metadataError: null, thinkingOpen: false });
    expect(parseReplyStream(['', new Uint8Array(0)])).toEqual({ text: '', thinking: '', metadata: null, metadataError: null, thinkingOpen: false });
  });

  it('plain text passes through unchanged, including literal < and C', () => {
    const s = 'Compare a < b and <b>bold</b>, C++ and CLEAR_THINKING and <thinking> and </think> here. ABC';
    expect(parseReplyStream([s]).text).toBe(s);
    expect(parseReplyStream(chars(s)).text).toBe(s);
  });

  it('separates thinking from text, over several think blocks', () => {
    const r = parseReplyStream(['<think>first</think>Hello <think> second</think>world']);
    expect(r.text).toBe('Hello world');
    expect(r.thinking).toBe('first second');
    expect(r.thinkingOpen).toBe(false);
  });

  it('a nested <think> inside thinking is literal thinking text', () => {
    const r = parseReplyStream(['<think>a<think>b</think>c']);
    expect(r.thinking).toBe('a<think>b');
    expect(r.text).toBe('c');
  });

  it('CLEAR_THINKING_MESSAGE inside think discards the thinking so far and keeps what follows', () => {
    const r = parseReplyStream(['<think>old CLEAR_THINKING_MESSAGEnew</think>answer']);
    expect(r.thinking).toBe('new');
    expect(r.text).toBe('answer');
  });

  it('CLEAR_THINKING_MESSAGE outside think discards earlier thinking and is removed from the text', () => {
    const r = parseReplyStream(['<think>old</think>abcCLEAR_THINKING_MESSAGEdef<think>new</think>!']);
    expect(r.text).toBe('abcdef!');
    expect(r.thinking).toBe('new');
  });

  it('a marker preceded by a partial copy of itself is still found', () => {
    expect(parseReplyStream(['CLEAR_CLEAR_THINKING_MESSAGEx']).text).toBe('CLEAR_x');
    expect(parseReplyStream(['<<think>t</think>']).text).toBe('<');
    expect(parseReplyStream(['<<think>t</think>']).thinking).toBe('t');
    expect(parseReplyStream(['<think>a</</think>b'])).toMatchObject({ thinking: 'a</', text: 'b' });
    expect(parseReplyStream(['<meta<metadata>{}</metadata>']).text).toBe('<meta');
  });

  it('parses the metadata tag and ignores everything after it', () => {
    const p = new ReplyStreamParser();
    p.push('Hi<metadata>{"cost":0.0012,"paymentSource":"USD","outputTokens":42,"inputTokens":7,"isPartial":false,"model":"m"}</metadata>after');
    expect(p.done).toBe(true);
    p.push('more text <think>x</think>');
    p.finish();
    expect(p.text).toBe('Hi');
    expect(p.thinking).toBe('');
    expect(p.metadata).toEqual({ cost: 0.0012, paymentSource: 'USD', outputTokens: 42, inputTokens: 7, isPartial: false, model: 'm' });
    expect(p.metadataError).toBeNull();
  });

  it('validates metadata field by field: wrong types and unknown fields are dropped', () => {
    const r = parseReplyStream([
      'x<metadata>{"cost":"0.1","paymentSource":"EUR","inputTokens":null,"outputTokens":12,"isPartial":"yes","error":"boom","isStreamStall":true,"billingError":1,"model":5,"extra":1}</metadata>',
    ]);
    expect(r.metadata).toEqual({ outputTokens: 12, error: 'boom', isStreamStall: true });
    expect(r.metadataError).toBeNull();
    expect(validateMetadata({ cost: Number.NaN, paymentSource: 'nano', billingError: false })).toEqual({ paymentSource: 'nano', billingError: false });
    expect(validateMetadata({ webNotice: 'not run here', extra: 1 })).toEqual({ webNotice: 'not run here' });
    expect(validateMetadata({ webNotice: 5 })).toEqual({});
    expect(validateMetadata([1])).toBeNull();
    expect(validateMetadata(null)).toBeNull();
  });

  it('malformed metadata JSON gives metadataError and null metadata but keeps the text', () => {
    const r = parseReplyStream(['Some reply', '<metadata>{"cost":0.1,</metadata>tail']);
    expect(r.text).toBe('Some reply');
    expect(r.metadata).toBeNull();
    expect(r.metadataError).toBe('Malformed metadata JSON');
    expect(parseReplyStream(['a<metadata></metadata>']).metadataError).toBe('Malformed metadata JSON');
    expect(parseReplyStream(['a<metadata>[1,2]</metadata>']).metadataError).toBe('Metadata is not a JSON object');
    expect(parseReplyStream(['a<metadata>"x"</metadata>']).metadata).toBeNull();
  });

  it('an unterminated <metadata> at the end is a metadataError; the text is kept', () => {
    const r = parseReplyStream(['reply text<metadata>{"cost":0.1}']);
    expect(r.text).toBe('reply text');
    expect(r.metadata).toBeNull();
    expect(r.metadataError).toBe('Unterminated metadata tag');
  });

  it('an unterminated <think> at the end keeps the thinking and reports thinkingOpen', () => {
    const r = parseReplyStream(['ok <think>still reasoning']);
    expect(r.text).toBe('ok ');
    expect(r.thinking).toBe('still reasoning');
    expect(r.thinkingOpen).toBe(true);
  });

  it('metadata arriving inside an open think block closes it and is parsed', () => {
    const r = parseReplyStream(['<think>cut short<metadata>{"isPartial":true}</metadata>']);
    expect(r.thinking).toBe('cut short');
    expect(r.thinkingOpen).toBe(false);
    expect(r.metadata).toEqual({ isPartial: true });
  });

  it('finish() flushes a held-back tail that turned out not to be a marker', () => {
    for (const tail of ['<', '<thi', '<metadat', 'C', 'CLEAR_THINKING_MESSAG']) {
      expect(parseReplyStream(['text ', tail]).text).toBe(`text ${tail}`);
      expect(parseReplyStream([`<think>t ${tail}`]).thinking).toBe(`t ${tail}`);
    }
    expect(parseReplyStream(['<think>a</thin']).thinking).toBe('a</thin');
  });

  it('holds back only a possible marker prefix, so text shows as soon as it arrives', () => {
    const p = new ReplyStreamParser();
    p.push('Hello wor');
    expect(p.text).toBe('Hello wor');
    p.push('ld <');
    expect(p.text).toBe('Hello world ');
    p.push('x> and C');
    expect(p.text).toBe('Hello world <x> and ');
    p.push('at ');
    expect(p.text).toBe('Hello world <x> and Cat ');
    p.push('<thi');
    expect(p.text).toBe('Hello world <x> and Cat ');
    p.push('nk>re');
    expect(p.thinkingOpen).toBe(true);
    expect(p.thinking).toBe('re');
    p.push('ason</');
    expect(p.thinking).toBe('reason');
    p.push('think>done');
    expect(p.text).toBe('Hello world <x> and Cat done');
    expect(p.done).toBe(false);
    p.finish();
    expect(p.done).toBe(true);
  });

  it('push after finish is ignored, and finish is idempotent', () => {
    const p = new ReplyStreamParser();
    p.push('a');
    p.finish();
    p.push('b');
    p.finish();
    expect(p.text).toBe('a');
  });
});

describe('ReplyStreamParser: markers split at every position', () => {
  const stream =
    'Intro C text <think>step one CLEAR_THINKING_MESSAGEstep two</think>Answer: a<b & <i>x</i> CLEAR_THINKING_MESSAGE' +
    'end<think>again</think>!<metadata>{"cost":0.5,"paymentSource":"nano","outputTokens":3}</metadata>ignored <think>no</think>';
  const expected = {
    text: 'Intro C text Answer: a<b & <i>x</i> end!',
    thinking: 'again',
    metadata: { cost: 0.5, paymentSource: 'nano', outputTokens: 3 },
    metadataError: null,
    thinkingOpen: false,
  };

  it('whole', () => {
    expect(parseReplyStream([stream])).toEqual(expected);
  });

  it('one character per chunk', () => {
    expect(parseBoth(chars(stream))).toEqual(expected);
  });

  it('every two-way split', () => {
    for (const parts of twoWaySplits(stream)) expect(parseBoth(parts), JSON.stringify(parts)).toEqual(expected);
  });

  it('every three-way split (each marker cut twice)', () => {
    for (const parts of threeWaySplits(stream)) {
      const r = parseReplyStream(parts);
      const e = parseReadingEach(parts);
      if (e.text !== r.text || e.thinking !== r.thinking) expect(e, JSON.stringify(parts)).toEqual(r);
      if (r.text !== expected.text || r.thinking !== expected.thinking || r.metadataError !== null) {
        expect(r, JSON.stringify(parts)).toEqual(expected);
      }
    }
  });

  it('every marker on its own, split at every position, in text and in think mode', () => {
    const cases: Array<[string, { text: string; thinking: string }]> = [
      ['a<think>b</think>c', { text: 'ac', thinking: 'b' }],
      ['<think>a</think>', { text: '', thinking: 'a' }],
      ['<think>x</think>aCLEAR_THINKING_MESSAGEb', { text: 'ab', thinking: '' }],
      ['<think>xCLEAR_THINKING_MESSAGEy</think>', { text: '', thinking: 'y' }],
      ['a<metadata>{}</metadata>b', { text: 'a', thinking: '' }],
      ['<think>t<metadata>{}</metadata>b', { text: '', thinking: 't' }],
    ];
    for (const [s, want] of cases) {
      for (const parts of twoWaySplits(s)) expect(parseBoth(parts), JSON.stringify(parts)).toMatchObject(want);
      for (const parts of threeWaySplits(s)) expect(parseBoth(parts), JSON.stringify(parts)).toMatchObject(want);
    }
  });

  it('byte chunks split at every byte position give the same result', () => {
    const bytes = enc.encode(stream);
    for (const parts of byteSplits(bytes)) expect(parseBoth(parts)).toEqual(expected);
  });
});

describe('ReplyStreamParser: UTF-8', () => {
  const s = 'héllo 中文 <think>ñ 😀 Ω</think>Ünïcödé 👩‍💻 ∑<metadata>{"model":"ü"}</metadata>';
  const bytes = enc.encode(s);
  const want = { text: 'héllo 中文 Ünïcödé 👩‍💻 ∑', thinking: 'ñ 😀 Ω', metadata: { model: 'ü' } };

  it('decodes a multi-byte character split across chunks at every byte position', () => {
    for (const parts of byteSplits(bytes)) expect(parseBoth(parts)).toMatchObject(want);
  });

  it('decodes one byte per chunk', () => {
    const parts: Uint8Array[] = [];
    for (let k = 0; k < bytes.length; k++) parts.push(bytes.subarray(k, k + 1));
    expect(parseBoth(parts)).toMatchObject(want);
  });

  it('a stream ending inside a multi-byte character flushes a replacement character', () => {
    const euro = enc.encode('a€');
    expect(parseReplyStream([euro.subarray(0, 2)]).text).toBe('a\uFFFD');
  });

  it('string and byte chunks can be mixed', () => {
    expect(parseReplyStream(['a<thi', enc.encode('nk>é</th'), 'ink>b']).text).toBe('ab');
  });
});

describe('ReplyStreamParser: a recorded-like stream (the bench fixture, smaller)', () => {
  const stream = recordedReplyStream(300_000, 7);
  // Read after each chunk, the text so far is compared with the whole previous text (nothing taken back): quadratic
  // in the stream's length (300 KB: 23,000 reads of up to 240 KB, 24 s at load 13, 115 s under CPU hogs). The
  // per-chunk path keeps no state that grows with the stream (one held chunk, a marker-long tail), so 60 KB from the
  // same generator (4,677 chunks: both think sections, the clear marker, code, CJK, emoji, metadata) proves it.
  const short = recordedReplyStream(60_000, 7);

  it('gives the expected text, thinking and metadata, all chunks at once or read after each', () => {
    const whole = (s: typeof stream): ParsedReply => {
      const once = parseReplyStream(s.chunks);
      expect(once.text).toBe(s.expected.text);
      expect(once.thinking).toBe(s.expected.thinking);
      expect(once.metadata).toMatchObject({ paymentSource: 'USD', model: 'bench-model' });
      return once;
    };
    whole(stream);
    expect(parseReadingEach(short.chunks)).toEqual(whole(short));
  });

  it('gives the same result when read every few chunks (bursts of any size, buffer growth)', () => {
    for (const every of [2, 7, 100, 5000]) {
      const p = new ReplyStreamParser();
      stream.chunks.forEach((c, k) => {
        p.push(c);
        if (k % every === 0) void p.text;
      });
      p.finish();
      expect(p.text).toBe(stream.expected.text);
      expect(p.thinking).toBe(stream.expected.thinking);
    }
  });
});

describe('ReplyStreamParser: limits', () => {
  it('a metadata tag longer than the limit is dropped with metadataError; the text is kept', () => {
    const chunks = ['text', '<metadata>{"error":"', 'x'.repeat(70_000), '"}</metadata>'];
    for (const r of [parseReplyStream(chunks), parseReadingEach(chunks)]) {
      expect(r.text).toBe('text');
      expect(r.metadata).toBeNull();
      expect(r.metadataError).toBe('Metadata tag too large');
    }
  });

  it('a metadata tag split into many chunks is found', () => {
    const tag = '<metadata>{"cost":1.5,"error":"partial"}</metadata>';
    expect(parseReadingEach(['a', ...chars(tag), 'zzz'])).toMatchObject({ text: 'a', metadata: { cost: 1.5, error: 'partial' } });
  });
});
