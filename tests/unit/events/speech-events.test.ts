import { describe, expect, it } from 'vitest';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import { fileIdOfAudioUrl, type MessageAudio, type MessageRow } from '../../../src/events/model';
import { checkPayload } from '../../../src/events/validate';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { fold } from '../../../src/projections/fold';
import { sampleMessage } from '../../bench/log-append/sample-log';

const slug = 'speech-slug';
const take = (chunks: MessageAudio['chunks'], failed: number[] = [], cost = 0): MessageAudio => ({ key: '["tts-1","alloy",1,{},3,9000]', model: 'tts-1', voice: 'alloy', speed: 1, chunkCount: 3, chunks, failed, cost });

describe('speech.generated', () => {
  const user = sampleMessage({ id: 1, conversationSlug: slug, timestamp: 1_700_000_000_000, role: 'user', prompt: 'Say it' });
  const reply: MessageRow = { ...sampleMessage({ id: 2, conversationSlug: slug, timestamp: 1_700_000_000_001, role: 'assistant' }), status: 'pending', mode: 'audio', parentMessageId: 1 };
  const events: NewEvent[] = [
    makeEvent('message.added', { message: user }, 'e1', 1),
    makeEvent('message.added', { message: reply }, 'e2', 2),
    makeEvent('speech.generated', { messageId: 2, conversationSlug: slug, audio: take([{ fileId: 10, mimeType: 'audio/mpeg', bytes: 100 }, null, null]), completes: false, paymentSource: null, at: 3 }, 'e3', 3),
    makeEvent('speech.generated', { messageId: 2, conversationSlug: slug, audio: take([{ fileId: 10, mimeType: 'audio/mpeg', bytes: 100 }, null, { fileId: 12, mimeType: 'audio/mpeg', bytes: 90 }], [1], 0.09), completes: true, paymentSource: 'USD', at: 4 }, 'e4', 4),
  ];

  it('keeps the take on the message; the last one of an Audio mode reply makes it done with its cost', () => {
    const partial = fold(events.slice(0, 3)).rows('messages').find((m) => m.id === 2);
    expect(partial?.audio?.chunks.filter(Boolean).length).toBe(1);
    expect(partial?.status).toBe('pending');
    const done = fold(events).rows('messages').find((m) => m.id === 2);
    expect(done).toMatchObject({ status: 'done', cost: 0.09, paymentSource: 'USD' });
    expect(done?.audio?.failed).toEqual([1]);
  });

  it('gives the message its audioUrls (spec 000 section 3): one reference per chunk made, each naming its file', () => {
    expect(fold(events.slice(0, 3)).rows('messages').find((m) => m.id === 2)?.audioUrls).toEqual(['parley-file:10']);
    const urls = fold(events).rows('messages').find((m) => m.id === 2)?.audioUrls ?? [];
    expect(urls).toEqual(['parley-file:10', 'parley-file:12']);
    expect(urls.map(fileIdOfAudioUrl)).toEqual([10, 12]);
    expect(fileIdOfAudioUrl('https://example.com/a.mp3')).toBeNull();
    expect(fileIdOfAudioUrl('parley-file:x')).toBeNull();
    // The user message has no speech.
    expect(fold(events).rows('messages').find((m) => m.id === 1)?.audioUrls).toBeUndefined();
  });

  it('replays from NDJSON to the same rows', () => {
    const decoded = decodeLog(encodeLog(events, { exportedAt: 5, schemaVersion: 42 } as never));
    expect(fold(decoded.events).rows('messages')).toEqual(fold(events).rows('messages'));
  });

  it('refuses a malformed take', () => {
    const good = events[3]?.payload;
    expect(checkPayload('speech.generated', good)).toBeNull();
    expect(checkPayload('speech.generated', { ...(good as object), audio: { ...take([null, null, null]), chunkCount: 2 } })).toContain('chunkCount');
    expect(checkPayload('speech.generated', { ...(good as object), audio: take([{ fileId: 'x', mimeType: 'a', bytes: 1 } as never, null, null]) })).not.toBeNull();
    expect(checkPayload('speech.generated', { ...(good as object), audio: take([null, null, null], [7]) })).toContain('failed');
  });
});
