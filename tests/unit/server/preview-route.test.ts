/**
 * The HTML preview shell: served outside /api with its own sandboxing policies (a nonce for its one script, a
 * Connection-Allowlist with WebRTC blocked); the app keeps its strict policy. The page splitter the shell runs is
 * run here too, from the same source text.
 */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import type { AppEnv } from '../../../src/server/http';
import {
  PREVIEW_PATH,
  PREVIEW_PROBE_PATH,
  PREVIEW_READY,
  PREVIEW_RENDER,
  previewConnectionAllowlist,
  previewCsp,
  registerPreviewRoute,
  SPLIT_PAGE_SOURCE,
} from '../../../src/server/preview/route';
import { CONTENT_SECURITY_POLICY } from '../../../src/server/static';

function directives(policy: string): Map<string, string> {
  return new Map(policy.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0]!, d.slice(d.indexOf(' ') + 1)]));
}

function app(): Hono<AppEnv> {
  const a = new Hono<AppEnv>();
  registerPreviewRoute(a);
  return a;
}

async function shell(host = '127.0.0.1:8787') {
  const res = await app().request(PREVIEW_PATH, { headers: { host } });
  return { res, csp: res.headers.get('content-security-policy') ?? '', body: await res.text() };
}

type Piece = { html: string } | { script: string; module: boolean };
const splitPage = new Function(`${SPLIT_PAGE_SOURCE}; return splitPage;`)() as (html: string) => Piece[];

describe('HTML preview route', () => {
  it('serves the shell in a sandbox (scripts, never same-origin), with no network, only the app as its parent', async () => {
    const { res, csp, body } = await shell();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const d = directives(csp);
    expect(d.get('sandbox')).toBe('allow-scripts');
    expect(csp).not.toMatch(/allow-same-origin|allow-top-navigation|allow-popups|allow-forms|allow-modals/);
    expect(d.get('default-src')).toBe("'none'");
    expect(d.get('connect-src')).toBe("'none'");
    expect(d.get('frame-src')).toBe("'none'");
    expect(d.get('worker-src')).toBe("'none'");
    expect(d.get('img-src')).toBe(`data: blob: 127.0.0.1:8787${PREVIEW_PROBE_PATH}`);
    expect(d.get('frame-ancestors')).toBe("'self'");
    expect(d.get('webrtc')).toBe("'block'");
    expect(res.headers.get('connection-allowlist')).toBe(`("http{s}?://127.0.0.1:8787${PREVIEW_PROBE_PATH}?ok");webrtc=block`);
    expect(res.headers.get('x-dns-prefetch-control')).toBe('off');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body).toContain(PREVIEW_READY);
    expect(body).toContain(PREVIEW_RENDER);
    // It takes the HTML from its parent only.
    expect(body).toContain('e.source !== parentWin');
  });

  it("scripts run only with the response's nonce (no 'unsafe-inline'), fresh each time, and the shell's is the only one", async () => {
    const a = await shell();
    const b = await shell();
    const nonceOf = (csp: string) => /'nonce-([A-Za-z0-9_-]{24})'/.exec(directives(csp).get('script-src') ?? '')?.[1];
    const n = nonceOf(a.csp);
    expect(n).toBeDefined();
    expect(directives(a.csp).get('script-src')).toBe(`'nonce-${n}' 'unsafe-eval'`);
    expect(nonceOf(b.csp)).not.toBe(n);
    expect(a.body.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${n}">`]);
    // The script's text cannot end its element early or open an escaped section.
    const inner = a.body.slice(a.body.indexOf('>', a.body.indexOf('<script')) + 1, a.body.lastIndexOf('</script>'));
    expect(inner).not.toMatch(/<\/script|<!--|<script/i);
    expect(() => new Function(inner)).not.toThrow();
  });

  it('names no host it cannot trust in its policies: the probe is then refused and the scripts stay off', async () => {
    for (const host of ['evil.example; script-src *', '[::1]:8787', 'a b', '"x"']) {
      const { res, csp } = await shell(host);
      expect(directives(csp).get('img-src')).toBe('data: blob:');
      expect(csp).not.toContain('evil');
      expect(res.headers.get('connection-allowlist')).toBe('();webrtc=block');
    }
    expect(previewCsp('n', null)).not.toContain(PREVIEW_PROBE_PATH);
    expect(previewConnectionAllowlist('localhost:5173')).toBe(`("http{s}?://localhost:5173${PREVIEW_PROBE_PATH}?ok");webrtc=block`);
  });

  it('serves the probe image uncached, to any origin', async () => {
    const res = await app().request(`${PREVIEW_PROBE_PATH}?ok`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('cross-origin-resource-policy')).toBeNull();
    expect(new Uint8Array(await res.arrayBuffer()).subarray(0, 6)).toEqual(new TextEncoder().encode('GIF89a'));
  });

  it("the app's own policy stays strict: scripts from itself only, and only same-origin frames", () => {
    const d = directives(CONTENT_SECURITY_POLICY);
    expect(d.get('script-src')).toBe("'self'");
    expect(d.get('frame-src')).toBe("'self'");
    expect(d.get('frame-ancestors')).toBe("'none'");
  });
});

describe('the shell splits a page where the HTML parser would find its scripts', () => {
  it('pieces of HTML and the classic and module scripts between them', () => {
    expect(splitPage('<h1>a</h1><script>one()</script><p>b</p><SCRIPT TYPE="text/JavaScript">two()</SCRIPT ><script type=module>m()</script>')).toEqual([
      { html: '<h1>a</h1>' },
      { script: 'one()', module: false },
      { html: '<p>b</p>' },
      { script: 'two()', module: false },
      { script: 'm()', module: true },
    ]);
    expect(splitPage('<script>if (a < b) { s = "</p>"; }</script>end')).toEqual([{ script: 'if (a < b) { s = "</p>"; }', module: false }, { html: 'end' }]);
    expect(splitPage('<script>unclosed(')).toEqual([{ script: 'unclosed(', module: false }]);
  });

  it('no script where the parser sees none: attribute values, comments, raw text, templates; data and external scripts stay HTML', () => {
    for (const inert of [
      '<iframe srcdoc="<script>x()</script>"></iframe>',
      '<a title=\'<script>x()</script>\'>t</a>',
      '<!-- <script>x()</script> -->',
      '<textarea><script>x()</script></textarea>',
      '<style>p::after { content: "<script>x()</script>"; }</style>',
      '<template><script>x()</script></template>',
      '<script type="application/json">{"a": 1}</script>',
      '<script src="x.js"></script>',
      '<script nomodule>x()</script>',
    ]) {
      expect(splitPage(`${inert}<script>y()</script>`), inert).toEqual([{ html: inert }, { script: 'y()', module: false }]);
    }
  });

  it('a tag with inline handlers ends its piece; a meta refresh is dropped', () => {
    expect(splitPage('<svg onload="a()"></svg><b title="x>y" onclick=\'c(">")\'>x</b>')).toEqual([
      { html: '<svg onload="a()">' },
      { html: '</svg><b title="x>y" onclick=\'c(">")\'>' },
      { html: 'x</b>' },
    ]);
    expect(splitPage('<p>a</p><META HTTP-EQUIV="Refresh" content="0;url=http://elsewhere.example/"><p>b</p>')).toEqual([{ html: '<p>a</p>' }, { html: '<p>b</p>' }]);
  });
});
