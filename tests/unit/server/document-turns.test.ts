/**
 * Issue 15, item 4: one session starved everyone's documents (one worker, a plain queue: while one session sent 8
 * archive and docx bombs, another user's 11-byte text file waited 26.5 s). Documents are now read in the parse
 * pool, in fair turns per session, each within a time budget (src/server/parse/).
 *
 * Real gateways on loopback and real bombs (DOCX files that inflate past officeparser's limit: seconds of work
 * each). No wall-clock assertion: the fairness test checks the order in which the answers come.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { makePdf, makeZipBomb } from '../attachments/fixtures';

let gw: RunningGateway;
let strict: RunningGateway;

const start = (env: Record<string, string> = {}): Promise<RunningGateway> =>
  startGateway({ port: 0, memory: true, clientDir: null, inheritEnv: false, env: { PARLEY_COSTLY_RATE_BURST: '1000', ...env }, log: () => {} });

beforeAll(async () => {
  gw = await start();
  strict = await start({ PARLEY_PARSE_DOCUMENT_MS: '200' });
});
afterAll(async () => {
  await gw?.close();
  await strict?.close();
});

async function session(g: RunningGateway): Promise<{ cookie: string; id: string }> {
  const res = await fetch(`${g.url}/auth/local-session`);
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '', id };
}

function upload(g: RunningGateway, cookie: string, name: string, bytes: Uint8Array, jobId?: string): Promise<{ status: number; body: { content?: string; error?: string; message?: string } }> {
  const form = new FormData();
  if (jobId) form.append('jobId', jobId);
  form.append('file', new Blob([bytes as BlobPart]), name);
  return fetch(`${g.url}/api/process-document`, { method: 'POST', headers: { cookie }, body: form }).then(async (res) => ({ status: res.status, body: (await res.json()) as { content?: string } }));
}

async function until(test: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2400; i++) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(await test()).toBe(true);
}

describe('documents take fair turns', () => {
  it("while one session's 8 bombs wait, another session's 11-byte text file is read before the bombs' third answer", async () => {
    const a = await session(gw);
    const b = await session(gw);
    const bomb = makeZipBomb(120);
    const answered: string[] = [];
    const bombs = Array.from({ length: 8 }, (_, i) => upload(gw, a.cookie, `bomb-${i}.docx`, bomb.slice(), `bomb-job-${i}`).then((r) => {
      answered.push(`a${i}`);
      return r;
    }));
    // Every bomb is in the pool (its job is claimed just before it is queued).
    await until(async () => (await gw.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM document_jobs WHERE session_id = $1`, [a.id]))[0]?.n === 8);
    const small = await upload(gw, b.cookie, 'notes.txt', new TextEncoder().encode('eleven byte'));
    answered.push('b');
    expect(small).toMatchObject({ status: 200, body: { content: 'eleven byte' } });
    // A plain queue would answer b after all 8 bombs; fair turns start it as soon as one thread is free.
    expect(answered.indexOf('b')).toBeLessThan(3);
    for (const r of await Promise.all(bombs)) {
      expect(r.status).toBe(422);
      expect(r.body.error).toBe('PROCESSING_FAILED');
    }
  }, 300_000);

  it('a document past its time budget fails with the plain reason, recorded for its job', async () => {
    const { cookie, id } = await session(strict);
    const r = await upload(strict, cookie, 'long.pdf', makePdf(1_000), 'long-job-1');
    expect(r).toEqual({ status: 422, body: { error: 'PROCESSING_FAILED', message: 'the file took too long to read' } });
    const [job] = await strict.db.query<{ status: string; error: string }>('SELECT status, error FROM document_jobs WHERE session_id = $1 AND job_id = $2', [id, 'long-job-1']);
    expect(job).toEqual({ status: 'error', error: 'the file took too long to read' });
  }, 120_000);
});
