/**
 * The gateway's event loop runs only what it needs: the readers of untrusted files and pages (pdf.js, officeparser,
 * linkedom, Readability) load in the parse threads, never in the main thread. pdf.js's legacy build in particular
 * replaces the global JSON.parse and JSON.stringify with core-js polyfills when it loads, which made every JSON the
 * gateway writes several times slower (issue 18's profile).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('the gateway main thread', () => {
  it('keeps Node’s own JSON and loads no file or page reader', async () => {
    const probe = fileURLToPath(new URL('./main-thread-modules.probe.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', probe], { cwd: process.cwd(), timeout: 110_000 });
    const line = stdout.trim().split('\n').pop() ?? '';
    const seen = JSON.parse(line) as { parse: boolean; stringify: boolean; packages: string[] };
    // The probe saw the gateway's own dependencies load (it did import the gateway).
    expect(seen.packages).toContain('hono');
    expect(seen.packages).toContain('@electric-sql/pglite');
    for (const reader of ['pdfjs-dist', 'officeparser', 'linkedom', '@mozilla/readability', 'word-extractor', '7z-wasm', 'node-unrar-js']) {
      expect(seen.packages).not.toContain(reader);
    }
    expect(seen.stringify).toBe(true);
    expect(seen.parse).toBe(true);
  });
});
