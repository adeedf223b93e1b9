import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as CFB from 'cfb';
import { PNG } from 'pngjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readUpload } from '../../../src/server/documents/process-document';
import { damagedMessage } from '../../../src/server/parse/readers/document';
import { PROTECTED_MESSAGE } from '../../../src/server/parse/readers/protection';
import { makeDocx, makePdf, makePptx, makeZip, makeZipBomb } from '../attachments/fixtures';
import { startFakeUpstream, textReply, type FakeUpstream } from './fake-upstream';
import { newSession, testGateway, type TestGateway, type TestSession } from './helpers';

let gw: TestGateway;
let session: TestSession;
beforeAll(async () => {
  gw = await testGateway();
  session = await newSession(gw.app);
});
afterAll(async () => {
  await gw.close();
});

function form(name: string, bytes: Uint8Array, type = 'application/octet-stream'): FormData {
  const fd = new FormData();
  fd.append('file', new Blob([bytes as BlobPart], { type }), name);
  return fd;
}

async function processDocument(name: string, bytes: Uint8Array, app = gw.app, cookie = session.cookie): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.request('/api/process-document', { method: 'POST', headers: { cookie }, body: form(name, bytes) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('POST /api/process-document', () => {
  it('an encrypted XLS (LibreOffice, password) is refused with the one message, and the log says its real size', async () => {
    const data = new Uint8Array(readFileSync(join(__dirname, '../../fixtures/documents/protected/protected.xls')));
    const r = await processDocument('budget.xls', data);
    expect(r).toMatchObject({ status: 422, body: { error: 'PROCESSING_FAILED', message: PROTECTED_MESSAGE } });
    expect(gw.logs).toContain(`process-document: budget.xls (${data.length} bytes): ${PROTECTED_MESSAGE}`);
  });

  it('an encrypted PPT (Apache POI, password), the CryptoAPI-encrypted XLS and DOC, encrypted RARs are refused with the one message', async () => {
    for (const name of ['protected.ppt', 'protected-cryptoapi.xls', 'protected-cryptoapi.doc', 'protected.rar', 'protected-header.rar']) {
      const r = await processDocument(name, new Uint8Array(readFileSync(join(__dirname, '../../fixtures/documents/protected', name))));
      expect(r).toMatchObject({ status: 422, body: { error: 'PROCESSING_FAILED', message: 'This file is password-protected. Remove the password and attach it again.' } });
    }
  });

  it('reads a DOCX: content, processing_time, processed_locally', async () => {
    const r = await processDocument('report.docx', makeDocx(['Quarterly report', 'Revenue grew 12%.']));
    expect(r.status).toBe(200);
    expect(r.body.content).toContain('Quarterly report');
    expect(r.body.content).toContain('Revenue grew 12%.');
    expect(typeof r.body.processing_time).toBe('number');
    expect(r.body.processed_locally).toBe(false);
  });

  it('reads a 20-slide PPTX, every slide in order', async () => {
    const r = await processDocument('deck.pptx', makePptx(Array.from({ length: 20 }, (_, i) => `Slide number ${i + 1} text`)));
    expect(r.status).toBe(200);
    const text = String(r.body.content);
    expect(text).toContain('Slide number 1 text');
    expect(text).toContain('Slide number 20 text');
    expect(text.indexOf('Slide number 2 text')).toBeLessThan(text.indexOf('Slide number 19 text'));
  });

  it('reads a PDF and text files over 10 MB the browser sends it', async () => {
    expect((await processDocument('doc.pdf', makePdf(3))).body.content).toContain('Page 3 of the test document.');
    const r = await processDocument('notes.md', enc('# Title\n\nSome *markdown*.'));
    expect(r.body.content).toBe('# Title\n\nSome *markdown*.');
  });

  it('reads a PowerPoint 97 file (its text atoms)', async () => {
    const cfb = CFB.utils.cfb_new();
    const atom = (type: number, body: Uint8Array): Uint8Array => {
      const h = new Uint8Array(8 + body.length);
      const v = new DataView(h.buffer);
      v.setUint16(0, 0, true);
      v.setUint16(2, type, true);
      v.setUint32(4, body.length, true);
      h.set(body, 8);
      return h;
    };
    const utf16 = (s: string) => Uint8Array.from([...s].flatMap((c) => [c.charCodeAt(0), 0]));
    const inner = new Uint8Array([...atom(0x0fa0, utf16('Old deck title')), ...atom(0x0fa8, enc('Second line'))]);
    const container = new Uint8Array(8 + inner.length);
    new DataView(container.buffer).setUint16(0, 0x000f, true);
    new DataView(container.buffer).setUint16(2, 0x03e8, true);
    new DataView(container.buffer).setUint32(4, inner.length, true);
    container.set(inner, 8);
    CFB.utils.cfb_add(cfb, 'PowerPoint Document', container);
    const bytes = CFB.write(cfb, { type: 'array' }) as unknown as number[];
    const r = await processDocument('old.ppt', Uint8Array.from(bytes));
    expect(r.status).toBe(200);
    expect(r.body.content).toBe('Old deck title\n\nSecond line');
  });

  it('a zip is listed and its text files extracted; traversal names stay names', async () => {
    const zip = makeZip({ 'readme.txt': 'hello from the zip', '../../etc/passwd.txt': 'root:x:0:0', 'img.png': new Uint8Array([1, 2, 3]), 'dir/code.py': 'print(1)' });
    const r = await processDocument('bundle.zip', zip);
    expect(r.status).toBe(200);
    const text = String(r.body.content);
    expect(text).toContain('ZIP archive: 4 files');
    expect(text).toContain('--- readme.txt ---\nhello from the zip');
    expect(text).toContain('--- etc/passwd.txt ---');
    expect(text).not.toContain('../');
    expect(text).toContain('- img.png (0.0 KB)');
    expect(text).toContain('--- dir/code.py ---\nprint(1)');
  });

  it('a zip bomb is listed, never inflated, and nothing else is affected', async () => {
    const bomb = makeZipBomb(16, 'zeros.txt');
    const r = await processDocument('bomb.zip', bomb);
    expect(r.status).toBe(200);
    expect(r.body.content).toContain('zeros.txt (16.00 MB)');
    expect(r.body.content).toContain('1 text file not extracted: over the size limit');
    // A DOCX bomb: officeparser's inflation limit refuses it.
    const docxBomb = makeZipBomb(120);
    const d = await processDocument('bomb.docx', docxBomb);
    expect(d.status).toBe(422);
    expect(d.body.error).toBe('PROCESSING_FAILED');
    // The gateway still answers.
    expect((await processDocument('ok.txt', enc('still fine'))).body.content).toBe('still fine');
  });

  it('a truncated DOCX fails with a reason; an empty file and an unknown type are refused', async () => {
    const whole = makeDocx(['text']);
    const t = await processDocument('cut.docx', whole.subarray(0, whole.length - 40));
    expect(t.status).toBe(422);
    expect(t.body.message).toBe(damagedMessage('docx'));
    const e = await processDocument('empty.docx', new Uint8Array(0));
    expect(e).toMatchObject({ status: 400, body: { error: 'EMPTY_FILE', message: 'Unsupported file: the file is empty' } });
    const u = await processDocument('tool.exe', enc('MZ'));
    expect(u).toMatchObject({ status: 415, body: { error: 'UNSUPPORTED_FILE', message: 'Unsupported file: unknown file format (.exe)' } });
  });

  it('a document with no text gives the spec message', async () => {
    const r = await processDocument('blank.docx', makeDocx([]));
    expect(r).toMatchObject({ status: 422, body: { error: 'NO_TEXT', message: 'No text content found in document' } });
  });

  it('a 200 MB upload is refused from its Content-Length before a byte is read', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    const res = await gw.app.request('/api/process-document', {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(200 * 1024 * 1024) },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe('FILE_TOO_LARGE');
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it('a body without a length stops being read at the limit; exactly the limit passes, one byte more does not', async () => {
    const limit = 64 * 1024;
    const multipart = (size: number): ReadableStream<Uint8Array> => {
      const head = enc('--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n');
      const tail = enc('\r\n--b--\r\n');
      return Readable.toWeb(Readable.from([head, new Uint8Array(size).fill(97), tail])) as unknown as ReadableStream<Uint8Array>;
    };
    const exact = await readUpload(multipart(limit), 'multipart/form-data; boundary=b', limit);
    expect(exact.ok && exact.bytes.length).toBe(limit);
    const over = await readUpload(multipart(limit + 1), 'multipart/form-data; boundary=b', limit);
    expect(over).toMatchObject({ ok: false, status: 413, code: 'FILE_TOO_LARGE' });
  });

  it('a job id keeps the result for a status call; the same job is never read twice', async () => {
    const fd = form('a.md', enc('# job text'));
    fd.append('jobId', 'job-12345678');
    const post = () => gw.app.request('/api/process-document', { method: 'POST', headers: { cookie: session.cookie }, body: fd });
    expect(await (await post()).json()).toMatchObject({ content: '# job text', processed_locally: false });
    const status = await gw.app.request('/api/process-document/status?jobId=job-12345678', { headers: { cookie: session.cookie } });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ content: '# job text' });
    expect(await (await post()).json()).toMatchObject({ content: '# job text' });
    const unknown = await gw.app.request('/api/process-document/status?jobId=job-unknown-1', { headers: { cookie: session.cookie } });
    expect(unknown.status).toBe(404);
    const other = await newSession(gw.app);
    expect((await gw.app.request('/api/process-document/status?jobId=job-12345678', { headers: { cookie: other.cookie } })).status).toBe(404);
  });

  it('multipart is refused on the JSON routes, and JSON on this one', async () => {
    const res = await gw.app.request('/api/conversation-summary', { method: 'POST', headers: { cookie: session.cookie }, body: form('a.txt', enc('x')) });
    expect(res.status).toBe(415);
    const json = await gw.app.request('/api/process-document', { method: 'POST', headers: { cookie: session.cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(415);
    const cross = await gw.app.request('/api/process-document', { method: 'POST', headers: { cookie: session.cookie, origin: 'http://evil.example' }, body: form('a.txt', enc('x')) });
    expect(cross.status).toBe(403);
  });
});

function pngDataUrl(w: number, h: number, rgba: [number, number, number, number]): string {
  const png = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) png.data.set(rgba, i * 4);
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

async function describe_(app: TestGateway['app'], cookie: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.request('/api/image-description', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('POST /api/image-description', () => {
  it('without a vision model the offline engine describes size, colours and text found', async () => {
    const r = await describe_(gw.app, session.cookie, { model: 'google/gemini-2.0-flash-001', image: pngDataUrl(20, 10, [220, 30, 30, 255]) });
    expect(r.status).toBe(200);
    expect(r.body.model).toBe('parley-offline');
    const text = String(r.body.description);
    expect(text).toContain('a PNG image, 20×10 pixels');
    expect(text).toContain('Main colours: red (100%).');
    expect(text).toContain('Text found: none.');
  });

  it('refuses what is not an image, and an image over 3.5 MB with the spec message', async () => {
    expect((await describe_(gw.app, session.cookie, { image: 'data:text/html;base64,PHNjcmlwdD4=' })).status).toBe(400);
    const big = `data:image/png;base64,${Buffer.alloc(3_670_017).toString('base64')}`;
    const r = await describe_(gw.app, session.cookie, { image: big });
    expect(r.status).toBe(413);
    expect(r.body.message).toBe('File is too large (3.50 MB). Maximum size is 3.5MB due to server limitations.');
  });

  describe('with a priced vision model', () => {
    let upstream: FakeUpstream;
    let paid: TestGateway;
    beforeAll(async () => {
      upstream = await startFakeUpstream(textReply('A red square.', { usage: { prompt_tokens: 900, completion_tokens: 5 } }), { models: ['gpt-4o'] });
      paid = await gw.rebuild({ PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'gpt-4o', PARLEY_UPSTREAM_PRICING: '{"gpt-4o":{"input":"2.50","output":"10"}}' });
    });
    afterAll(async () => {
      await upstream.close();
    });

    it('the catalogue marks it as vision', () => {
      expect(paid.catalogue.resolve('gpt-4o')?.info.capabilities).toContain('vision');
      expect(paid.catalogue.resolve('parley-offline')?.info.capabilities).not.toContain('vision');
    });

    it('an empty balance gets 402 before any upstream call', async () => {
      const s = await newSession(paid.app);
      const before = upstream.requests.length;
      const r = await describe_(paid.app, s.cookie, { model: 'gpt-4o', image: pngDataUrl(4, 4, [0, 0, 255, 255]) });
      expect(r.status).toBe(402);
      expect(r.body.error).toBe('INSUFFICIENT_BALANCE');
      expect(upstream.requests.length).toBe(before);
    });

    it('a funded session is described by the model, sends the image inline, and pays the usage', async () => {
      const s = await newSession(paid.app);
      await paid.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
      const r = await describe_(paid.app, s.cookie, { model: 'gpt-4o', image: pngDataUrl(4, 4, [0, 0, 255, 255]) });
      expect(r).toMatchObject({ status: 200, body: { description: 'A red square.', model: 'gpt-4o' } });
      const sent = upstream.requests.at(-1)?.body?.messages as { content: { type: string }[] }[];
      expect(sent[0]?.content.map((p) => p.type)).toEqual(['text', 'image_url']);
      const balance = await paid.ledger.balance(s.data.id);
      // 900 input tokens at $2.50/M + 5 output at $10/M = 2250 + 50 micro-dollars.
      expect(balance.usdMicro).toBe(1_000_000n - 2_300n);
    });

    it("passes the request's detail upstream as image_url.detail ('detailed', the default, is 'high')", async () => {
      const s = await newSession(paid.app);
      await paid.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
      const sentDetail = () => (upstream.requests.at(-1)?.body?.messages as { content: { type: string; image_url?: { detail?: string } }[] }[] | undefined)?.[0]?.content[1]?.image_url?.detail;
      const image = pngDataUrl(4, 4, [0, 255, 0, 255]);
      for (const [detail, upstreamDetail] of [['low', 'low'], ['auto', 'auto'], ['high', 'high'], ['detailed', 'high'], [undefined, 'high']] as const) {
        const r = await describe_(paid.app, s.cookie, { model: 'gpt-4o', image, ...(detail ? { detail } : {}) });
        expect(r.status).toBe(200);
        expect(sentDetail()).toBe(upstreamDetail);
      }
      expect((await describe_(paid.app, s.cookie, { model: 'gpt-4o', image, detail: 'ultra' })).status).toBe(400);
    });

    it('takes the session the cookie names, and refuses another one before any upstream call', async () => {
      const s = await newSession(paid.app);
      await paid.ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
      const image = pngDataUrl(4, 4, [0, 0, 0, 255]);
      expect((await describe_(paid.app, s.cookie, { model: 'gpt-4o', image, session: s.data.id })).status).toBe(200);
      const before = upstream.requests.length;
      const other = await newSession(paid.app);
      const r = await describe_(paid.app, s.cookie, { model: 'gpt-4o', image, session: other.data.id });
      expect(r).toMatchObject({ status: 403, body: { error: 'SESSION_MISMATCH' } });
      expect(upstream.requests.length).toBe(before);
    });
  });

  describe('with PARLEY_VISION_MODEL configured', () => {
    let upstream: FakeUpstream;
    let configured: TestGateway;
    beforeAll(async () => {
      upstream = await startFakeUpstream(textReply('A green field.'), { models: ['vision-x', 'text-only'] });
      configured = await gw.rebuild({ PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'vision-x,text-only', PARLEY_VISION_MODEL: 'vision-x' });
    });
    afterAll(async () => {
      await upstream.close();
    });

    it('a model that takes no images (or none named) is replaced by the configured vision model', async () => {
      const s = await newSession(configured.app);
      for (const model of ['text-only', 'google/gemini-2.0-flash-001', undefined]) {
        const r = await describe_(configured.app, s.cookie, { image: pngDataUrl(4, 4, [0, 200, 0, 255]), ...(model ? { model } : {}) });
        expect(r).toMatchObject({ status: 200, body: { description: 'A green field.', model: 'vision-x' } });
        expect(upstream.requests.at(-1)?.body?.model).toBe('vision-x');
      }
    });
  });
});

describe('POST /notion/unsupported-filetypes', () => {
  it('records the report and caps it per session a day', async () => {
    const s = await newSession(gw.app);
    const post = (body: unknown) =>
      gw.app.request('/notion/unsupported-filetypes', { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await post({ filetype: '.EXE', filesizemb: 1.5 });
    expect(ok.status).toBe(202);
    expect(await ok.json()).toEqual({ recorded: true });
    const rows = await gw.db.query<{ filetype: string; filesize_mb: string }>('SELECT filetype, filesize_mb FROM unsupported_filetype_reports WHERE session_id = $1', [s.data.id]);
    expect(rows).toEqual([{ filetype: 'exe', filesize_mb: '1.500' }]);
    expect((await post({ filetype: '', filesizemb: 1 })).status).toBe(400);
    expect((await post({ filetype: 'x', filesizemb: -1 })).status).toBe(400);
    for (let i = 1; i < 100; i++) await post({ filetype: 'bin', filesizemb: 0 });
    expect(await (await post({ filetype: 'bin', filesizemb: 0 })).json()).toEqual({ recorded: false });
  });

  it('needs a session', async () => {
    const res = await gw.app.request('/notion/unsupported-filetypes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"filetype":"x","filesizemb":1}' });
    expect(res.status).toBe(401);
  });
});
