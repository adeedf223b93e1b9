/** The HTML preview shell: served outside /api with its own sandboxing policy; the app keeps its strict one. */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import type { AppEnv } from '../../../src/server/context';
import { PREVIEW_CSP, PREVIEW_PATH, PREVIEW_READY, PREVIEW_RENDER, registerPreviewRoute } from '../../../src/server/routes/preview';
import { CONTENT_SECURITY_POLICY } from '../../../src/server/static';

function directives(policy: string): Map<string, string> {
  return new Map(policy.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0]!, d.slice(d.indexOf(' ') + 1)]));
}

describe('HTML preview route', () => {
  it('serves the shell with a sandbox (scripts, never same-origin), no network and only the app as its frame parent', async () => {
    const app = new Hono<AppEnv>();
    registerPreviewRoute(app);
    const res = await app.request(PREVIEW_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toBe(PREVIEW_CSP);
    const d = directives(csp);
    expect(d.get('sandbox')).toBe('allow-scripts');
    expect(csp).not.toMatch(/allow-same-origin|allow-top-navigation|allow-popups|allow-forms|allow-modals/);
    expect(d.get('default-src')).toBe("'none'");
    expect(d.get('connect-src')).toBe("'none'");
    expect(d.get('img-src')).toBe('data: blob:');
    expect(d.get('frame-ancestors')).toBe("'self'");
    const body = await res.text();
    expect(body).toContain(PREVIEW_READY);
    expect(body).toContain(PREVIEW_RENDER);
    // It takes the HTML from its parent only.
    expect(body).toContain('e.source !== parent');
  });

  it("the app's own policy stays strict: scripts from itself only, and only same-origin frames", () => {
    const d = directives(CONTENT_SECURITY_POLICY);
    expect(d.get('script-src')).toBe("'self'");
    expect(d.get('frame-src')).toBe("'self'");
    expect(d.get('frame-ancestors')).toBe("'none'");
  });
});
