/**
 * Issue 5 item 5: a finished reply keeps only what a resume needs (its text and metadata), within one byte budget
 * for all replies, oldest finished forgotten first. Before, each reply held its whole route scope (the request
 * messages, the upstream) for 60 s.
 *
 * Heap figures are taken after a forced GC (v8 flag set at runtime) and compared with what the replies' route
 * scopes would weigh if they were kept, a factor of ten or more away, so the assertions do not hang on timing or
 * on the machine.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplyRegistry, REPLY_OVERHEAD_BYTES } from '../../../src/server/chat/reply-registry';
import type { ReplySink } from '../../../src/server/chat/reply-sink';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream';
import { chatBody, newSession, postStream, readStream, testGateway, type TestGateway } from './helpers';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const MB = 1024 * 1024;

class Collect implements ReplySink {
  text = '';
  ended = false;
  write(t: string): Promise<void> {
    this.text += t;
    return Promise.resolve();
  }
  end(): void {
    this.ended = true;
  }
}

describe('reply registry: bounded memory', () => {
  it('20,000 finished replies: only their text is kept, within the byte budget, and their route scopes are freed', async () => {
    const budget = 8 * MB;
    const replies = new ReplyRegistry({ budgetBytes: budget, retainMs: 60_000 });
    const before = heapAfterGc();
    for (let i = 0; i < 20_000; i++) {
      // What a route scope holds: the request's messages (20 KB here) reachable from the abandon callback.
      const scope = { messages: [{ role: 'user', content: `${i}:`.padEnd(20_000, 'x') }] };
      const key = `chat:s:${i}`;
      const r = replies.open(key, () => void scope.messages.length);
      for (let k = 0; k < 10; k++) await r.write(`token ${k} of reply ${i}. `);
      await r.write('<metadata>{"cost":0,"isPartial":false}</metadata>');
      replies.finish(key, r);
    }
    const grew = heapAfterGc() - before;
    // Kept scopes alone would be 20,000 x 20 KB = 400 MB (twice that in UTF-16).
    expect(grew).toBeLessThan(40 * MB);
    expect(replies.bytes).toBeLessThanOrEqual(budget);
    expect(replies.size).toBeLessThan(20_000);
    expect(replies.size).toBeGreaterThan(budget / (REPLY_OVERHEAD_BYTES + 2 * 400));
    // The newest are the ones kept, whole; the oldest were forgotten first.
    expect(replies.get('chat:s:0')).toBeUndefined();
    const last = replies.get('chat:s:19999');
    expect(last?.done).toBe(true);
    const sink = new Collect();
    await last?.attach(sink);
    expect(sink.ended).toBe(true);
    expect(sink.text).toBe(`${Array.from({ length: 10 }, (_, k) => `token ${k} of reply 19999. `).join('')}<metadata>{"cost":0,"isPartial":false}</metadata>`);
    replies.close();
  });

  it('forgets finished replies after the retention time, and in-flight ones never', async () => {
    const replies = new ReplyRegistry({ retainMs: 40 });
    const live = replies.open('live', () => {});
    await live.write('still going');
    const done = replies.open('done', () => {});
    await done.write('finished');
    replies.finish('done', done);
    expect(replies.get('done')).toBe(done);
    await new Promise((r) => setTimeout(r, 150));
    expect(replies.get('done')).toBeUndefined();
    expect(replies.get('live')).toBe(live);
    expect(replies.size).toBe(1);
    expect(replies.bytes).toBe(REPLY_OVERHEAD_BYTES + 2 * 'still going'.length);
    replies.close();
  });

  it('a key opened again while its first reply still runs: the first one is no longer counted', async () => {
    const replies = new ReplyRegistry();
    const first = replies.open('k', () => {});
    await first.write('old text');
    const second = replies.open('k', () => {});
    await first.write(' still coming');
    await second.write('new');
    replies.finish('k', first);
    replies.finish('k', second);
    expect(replies.get('k')).toBe(second);
    expect(replies.size).toBe(1);
    expect(replies.bytes).toBe(REPLY_OVERHEAD_BYTES + 2 * 'new'.length);
    replies.close();
  });

  it('a listener that attaches while the reply ends mid-catch-up gets every character once', async () => {
    const replies = new ReplyRegistry();
    const r = replies.open('k', () => {});
    await r.write('a');
    await r.write('b');
    let release: () => void = () => {};
    const slow: ReplySink & { text: string; ended: boolean } = {
      text: '',
      ended: false,
      write(t) {
        this.text += t;
        return this.text.length === 2 ? new Promise<void>((res) => (release = res)) : Promise.resolve();
      },
      end() {
        this.ended = true;
      },
    };
    const attached = r.attach(slow);
    await r.write('c');
    await r.write('d');
    replies.finish('k', r); // joins the chunks into one while the listener waits on its first write
    release();
    await attached;
    expect(slow.text).toBe('abcd');
    expect(slow.ended).toBe(true);
    replies.close();
  });
});

describe('stream-gpt: finished replies do not keep their requests', () => {
  let up: FakeUpstream;
  let gw: TestGateway;
  beforeAll(async () => {
    up = await startFakeUpstream({ steps: [{ content: 'Hello' }, { content: ' there' }], usage: { prompt_tokens: 3, completion_tokens: 2 } });
    gw = await testGateway({ PARLEY_UPSTREAM_URL: up.url, PARLEY_UPSTREAM_MODELS: 'fake-model', PARLEY_COSTLY_RATE_BURST: '100000' });
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });

  it('100 replies to 1 MB prompts leave the heap where it was (they would hold over 200 MB)', async () => {
    const { cookie } = await newSession(gw.app);
    // Warm up (JIT, PGlite caches, the first connection) before the heap is measured.
    for (let i = 0; i < 5; i++) await readStream(await postStream(gw.app, cookie, chatBody('fake-model', 'warm', { requestId: `req-warm-${i}-000` })));
    up.requests.length = 0;
    const before = heapAfterGc();
    for (let i = 0; i < 100; i++) {
      const prompt = `${i} `.padEnd(1024 * 1024, 'p');
      const res = await postStream(gw.app, cookie, chatBody('fake-model', prompt, { requestId: `req-mem-${i}-0000` }));
      const { body, meta } = await readStream(res);
      expect(body).toBe('Hello there');
      expect(meta.isPartial).toBe(false);
      up.requests.length = 0; // the fake upstream records request bodies
    }
    const grew = heapAfterGc() - before;
    expect(grew).toBeLessThan(30 * MB);
    // Still resumable: the text and metadata are kept.
    const res = await gw.app.request('/api/stream-gpt/resume', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ requestId: 'req-mem-99-0000' }),
    });
    expect((await readStream(res)).body).toBe('Hello there');
  }, 120_000);
});
