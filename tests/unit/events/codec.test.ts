import { describe, expect, it } from 'vitest';
import type { RawEvent, StoredEvent } from '../../../src/events/catalogue';
import { decodeLog, encodeLog, LogFormatError } from '../../../src/events/codec';
import { fold } from '../../../src/projections/fold';
import { generateSampleLog } from '../../bench/log-append/sample-log';

const events = generateSampleLog({ events: 400, seed: 3 });
const stored: StoredEvent[] = events.map((e, i) => ({ ...e, seq: i + 1 }) as StoredEvent);
const META = { exportedAt: 1_700_000_123_456 };

function errorOf(text: string): LogFormatError {
  try {
    decodeLog(text);
  } catch (e) {
    expect(e).toBeInstanceOf(LogFormatError);
    return e as LogFormatError;
  }
  throw new Error('expected decodeLog to fail');
}

describe('encodeLog', () => {
  it('writes the header first, one event per line, and a final newline', () => {
    const text = encodeLog(stored.slice(0, 2), META);
    const lines = text.split('\n');
    expect(lines[0]).toBe('{"format":"parley-event-log","version":1,"schema":42,"exportedAt":1700000123456,"count":2}');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(JSON.parse(lines[1] as string)).toEqual(stored[0]);
    expect(Object.keys(JSON.parse(lines[1] as string))).toEqual(['seq', 'type', 'v', 'id', 'at', 'payload']);
  });
});

describe('decodeLog', () => {
  it('round-trips a realistic log exactly', () => {
    const text = encodeLog(stored, META);
    const decoded = decodeLog(text);
    expect(decoded.header).toEqual({ format: 'parley-event-log', version: 1, schema: 42, exportedAt: META.exportedAt, count: stored.length });
    expect(decoded.events).toEqual(stored);
    expect(encodeLog(decoded.events, META)).toBe(text);
    expect(fold(decoded.events).rows('messages')).toEqual(fold(events).rows('messages'));
  });

  it('round-trips events without seq', () => {
    expect(decodeLog(encodeLog(events, META)).events).toEqual(events);
  });

  it('tolerates CRLF, a BOM, no final newline and trailing blank lines', () => {
    const text = encodeLog(stored.slice(0, 5), META);
    expect(decodeLog(text.replace(/\n/g, '\r\n')).events).toEqual(stored.slice(0, 5));
    expect(decodeLog(`\uFEFF${text}`).events).toHaveLength(5);
    expect(decodeLog(text.trimEnd()).events).toHaveLength(5);
    expect(decodeLog(`${text}\n\r\n  \n`).events).toHaveLength(5);
  });

  it('decodes an empty log', () => {
    expect(decodeLog(encodeLog([], META)).events).toEqual([]);
  });

  it('upcasts old versions', () => {
    const v1: RawEvent = {
      type: 'message.added', v: 1, id: 'old', at: 1,
      payload: { message: { id: 1, conversationSlug: 's', timestamp: 1_600_000_000, role: 'user', prompt: 'p', model: 'm', status: 'done' } },
    };
    const [e] = decodeLog(encodeLog([v1], META)).events;
    expect(e?.v).toBe(2);
    expect(e?.type === 'message.added' && e.payload.message).toMatchObject({ timestamp: 1_600_000_000_000, isActiveBranch: true, parentMessageId: null });
  });

  describe('rejects malformed input with the line number', () => {
    const good = encodeLog(stored.slice(0, 3), META).split('\n');
    const withLine = (n: number, line: string) => good.map((l, i) => (i === n - 1 ? line : l)).join('\n');

    it('empty file', () => {
      expect(errorOf('').message).toBe('line 1: empty file: the header line is missing');
      expect(errorOf('\n\n').line).toBe(1);
    });
    it('header not JSON / not a Parley log / newer format / bad count', () => {
      expect(errorOf(withLine(1, '{oops')).message).toMatch(/^line 1: not valid JSON/);
      expect(errorOf(withLine(1, '{"format":"something-else"}')).message).toMatch(/^line 1: not a Parley event log/);
      expect(errorOf(withLine(1, '{"format":"parley-event-log","version":2,"schema":42,"exportedAt":1,"count":3}')).message).toMatch(
        /^line 1: log format version 2 is newer than this build reads/,
      );
      expect(errorOf(withLine(1, '{"format":"parley-event-log","version":1,"schema":42,"exportedAt":1,"count":-1}')).message).toMatch(/header.count/);
    });
    it('an event line that is not JSON', () => {
      const e = errorOf(withLine(3, '{"seq":2,"type":'));
      expect(e.line).toBe(3);
      expect(e.message).toMatch(/^line 3: not valid JSON/);
    });
    it('an event of an unknown type or newer version', () => {
      expect(errorOf(withLine(2, '{"type":"nope","v":1,"id":"a","at":1,"payload":{}}')).message).toMatch(/^line 2: unknown event type 'nope'/);
      const newer = JSON.stringify({ ...stored[1], v: 9 });
      expect(errorOf(withLine(3, newer)).message).toMatch(/^line 3: .*version 9, newer than this build supports/);
    });
    it('an event with a broken envelope or payload', () => {
      expect(errorOf(withLine(2, '[1,2]')).message).toBe('line 2: event must be a JSON object');
      expect(errorOf(withLine(2, JSON.stringify({ ...stored[0], at: 'yesterday' }))).message).toBe('line 2: event.at must be a number (milliseconds)');
      const brokenPayload = JSON.stringify({ ...stored[0], payload: { conversation: { id: 1 } } });
      expect(errorOf(withLine(2, brokenPayload)).message).toMatch(/^line 2: 'conversation.created' v1: payload.conversation.uuid is missing/);
    });
    it('a blank line inside, a duplicate id, a count mismatch', () => {
      expect(errorOf(withLine(3, '')).message).toBe('line 3: empty line inside the log');
      expect(errorOf(withLine(4, good[2] as string)).message).toMatch(/^line 4: duplicate event id '.*' \(first on line 3\)/);
      const truncated = good.slice(0, 3).join('\n');
      expect(errorOf(truncated).message).toBe('line 3: header says 3 events but the file has 2 (truncated or edited file?)');
    });
  });
});
