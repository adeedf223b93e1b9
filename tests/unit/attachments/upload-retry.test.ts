/**
 * The engine's side of the gateway's upload caps (docs/gateway.md, "Security and limits"): a file the gateway turns
 * away for now (429 or 503 with Retry-After) is sent again after the wait it names; any other refusal is final.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../../src/worker/infra/gateway';
import { attachmentCalls, UPLOAD_RETRIES } from '../../../src/worker/rooms/library/gateway-calls';

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

function answers(...responses: Response[]): { calls: { path: string; form: FormData | null }[] } {
  const seen = { calls: [] as { path: string; form: FormData | null }[] };
  vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
    seen.calls.push({ path, form: init.body instanceof FormData ? init.body : null });
    return responses.shift() ?? json(500, { error: 'INTERNAL', message: 'no more answers' });
  });
  return seen;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

const busy = { error: 'TOO_MANY_UPLOADS', message: 'Too many uploads from this session at once; try again in 5 s' };
const full = { error: 'UPLOADS_BUSY', message: 'The server is reading too many uploads at once; try again in 5 s' };
const done = { content: 'the text', processing_time: 0.1, processed_locally: false };

describe('uploads the gateway turns away for now', () => {
  it('are sent again, whole, after the Retry-After wait (429 and 503)', async () => {
    const seen = answers(json(429, busy, { 'retry-after': '0' }), json(503, full, { 'retry-after': '0' }), json(200, done));
    const file = new Blob(['slide text'], { type: 'application/octet-stream' });
    expect(await attachmentCalls.processDocument(file, 'deck.pptx', 'job-12345678')).toEqual(done);
    expect(seen.calls).toHaveLength(3);
    for (const call of seen.calls) {
      expect(call.path).toBe('/api/process-document');
      expect(call.form?.get('jobId')).toBe('job-12345678');
      expect(await (call.form?.get('file') as File | undefined)?.text()).toBe('slide text');
    }
  });

  it('a refusal without Retry-After, or any other status, is final', async () => {
    const seen = answers(json(503, { error: 'SERVER', message: 'down' }), json(413, { error: 'FILE_TOO_LARGE', message: 'too big' }));
    const file = new Blob(['x']);
    await expect(attachmentCalls.processDocument(file, 'a.pptx', 'job-12345678')).rejects.toMatchObject({ status: 503 });
    await expect(attachmentCalls.processDocument(file, 'a.pptx', 'job-12345678')).rejects.toBeInstanceOf(GatewayError);
    expect(seen.calls).toHaveLength(2);
  });

  it(`gives up after ${UPLOAD_RETRIES} more tries with the gateway's own refusal`, async () => {
    const seen = answers(...Array.from({ length: UPLOAD_RETRIES + 1 }, () => json(429, busy, { 'retry-after': '0' })));
    await expect(attachmentCalls.processDocument(new Blob(['x']), 'a.pptx', 'job-12345678')).rejects.toMatchObject({ status: 429, body: busy });
    expect(seen.calls).toHaveLength(UPLOAD_RETRIES + 1);
  });

  it('an image description is sent again the same way', async () => {
    const seen = answers(json(429, busy, { 'retry-after': '0' }), json(200, { description: 'A red square.', model: 'parley-offline' }));
    const r = await attachmentCalls.describeImage({ image: 'data:image/png;base64,AAAA' });
    expect(r.description).toBe('A red square.');
    expect(seen.calls.map((c) => c.path)).toEqual(['/api/image-description', '/api/image-description']);
  });
});
