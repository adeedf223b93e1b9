/**
 * A fake media provider on loopback for tests: the OpenAI images API (generations and edits) and a fal-style
 * video queue (submit, status, result) with a video file server. Each behaviour is scripted per test.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { paint, sceneOf } from '../../../src/server/media/art';
import { encodePng } from '../../../src/server/media/png';
import { renderOfflineClip } from '../../../src/server/media/providers/video-offline';

export type ImageBehaviour = 'ok' | 'wrong-type' | 'policy' | 'error' | 'url';
/** Each status call of a job takes the next entry; the last one repeats. 'flap' answers HTTP 503. */
export type StatusStep = 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'flap';

export interface FakeMedia {
  url: string;
  image: ImageBehaviour;
  statuses: StatusStep[];
  /** The video file answers 404. */
  videoMissing: boolean;
  /** The URL the image ('url' behaviour) and video results name instead of the fake's own files (SSRF tests). */
  fileUrl: string | null;
  /** Added to the queue's submit answer (status_url, response_url). */
  submitExtra: Record<string, unknown>;
  /** When set, the queue's result answer instead of `{video: {url}}` (a provider answering in another shape). */
  result: unknown;
  /** When set, the queue's submit answers only once it resolves (a provider call in flight). */
  submitGate: Promise<void> | null;
  requests: { path: string; contentType: string; body: string }[];
  submitted: number;
  close(): Promise<void>;
}

const PNG = encodePng(paint(sceneOf('fake provider', 1), 32, 32), 32, 32);

async function read(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('latin1');
}

export async function startFakeMedia(): Promise<FakeMedia> {
  const calls = new Map<string, number>();
  let server: Server;
  const fake: FakeMedia = {
    url: '',
    image: 'ok',
    statuses: ['IN_PROGRESS', 'COMPLETED'],
    videoMissing: false,
    fileUrl: null,
    submitExtra: {},
    result: undefined,
    submitGate: null,
    requests: [],
    submitted: 0,
    close: () => new Promise((r) => server.close(() => r())),
  };
  server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const path = req.url ?? '';
      fake.requests.push({ path, contentType: req.headers['content-type'] ?? '', body: body.slice(0, 2000) });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (path === '/v1/images/generations' || path === '/v1/images/edits') {
        if (fake.image === 'policy') return json(400, { error: { code: 'content_policy_violation', message: 'Your request was rejected by the safety system.' } });
        if (fake.image === 'error') return json(500, { error: { message: 'boom' } });
        if (fake.image === 'wrong-type') return json(200, { data: [{ b64_json: Buffer.from('<html>not an image</html>').toString('base64') }] });
        if (fake.image === 'url') return json(200, { data: [{ url: fake.fileUrl ?? `${fake.url}/files/image.png` }] });
        const n = path.endsWith('generations') ? Number((JSON.parse(body) as { n?: number }).n ?? 1) : 1;
        return json(200, { data: Array.from({ length: n }, () => ({ b64_json: PNG.toString('base64') })) });
      }
      if (path === '/files/image.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(PNG);
      }
      if (path.startsWith('/files/')) {
        if (fake.videoMissing) return json(404, { detail: 'Not found' });
        res.writeHead(200, { 'content-type': 'video/mp4' });
        return res.end(renderOfflineClip({ prompt: 'fake', settings: { duration: 1 } }));
      }
      if (path.startsWith('/queue/')) {
        const m = /\/requests\/([^/]+)(\/status)?$/.exec(path);
        if (req.method === 'POST' && !m) {
          if (fake.submitGate) await fake.submitGate;
          fake.submitted++;
          return json(200, { request_id: `req-${fake.submitted}`, ...fake.submitExtra });
        }
        if (m?.[2]) {
          const id = m[1] as string;
          const i = calls.get(id) ?? 0;
          calls.set(id, i + 1);
          const step = fake.statuses[Math.min(i, fake.statuses.length - 1)] as StatusStep;
          if (step === 'flap') return json(503, { detail: 'busy' });
          return json(200, step === 'FAILED' ? { status: 'FAILED', error: 'The model could not render this prompt' } : { status: step });
        }
        if (m) return json(200, fake.result !== undefined ? fake.result : { video: { url: fake.fileUrl ?? `${fake.url}/files/${m[1]}.mp4` } });
      }
      json(404, { detail: 'no route' });
    })();
  });
  // Idle keep-alive sockets stay open for the whole test: with Node's 5 s default, a busy machine let the client
  // reuse a socket the server was closing (ECONNRESET on the next request, a failure no real provider causes).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
