/**
 * The code viewer's HTML preview (issue 8 item 5; issue 15 item 8): an empty shell the viewer loads in an
 * `<iframe sandbox="allow-scripts">` and feeds the user's HTML by postMessage. Served here, with policies of its
 * own, so that the app's policy stays strict (script-src 'self', no inline script). docs/code-viewer.md.
 *
 * No channel out, WebRTC included, in three layers:
 * - `Connection-Allowlist: (<the probe's control URL>);webrtc=block` (Chromium 152 and later): the browser refuses
 *   every connection the frame and its children start (fetch, subresources, navigations of the frame itself,
 *   resource hints, WebSocket, WebTransport and WebRTC) but one harmless image of ours.
 * - Content-Security-Policy: `sandbox allow-scripts` (an opaque origin: no cookies, storage or same-origin access
 *   to the app; no forms, popups, modals or top navigation); `default-src 'none'`, images, fonts and media from
 *   data: and blob: only; and scripts only with this response's nonce: the shell's. The page's scripts are run by
 *   the shell (indirect eval, 'unsafe-eval'), in this document only: a child frame (srcdoc, about:blank) can run
 *   no script at all, and workers are refused. Chromium kills the renderer, the app's included, when a srcdoc
 *   child of a document under a Connection-Allowlist constructs an RTCPeerConnection: a child with no script
 *   cannot.
 * - Before any of the page's code runs, the shell deletes RTCPeerConnection and the other RTC* interfaces from the
 *   one realm the page's code runs in.
 * The shell then checks that the browser enforces the allowlist (an image the CSP allows but the allowlist does
 * not must fail, its control must load). Where it does not (other browsers today), the page is shown without its
 * scripts: nothing else stops a script from navigating its own frame to another site.
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import type { AppEnv } from '../http';
import { PREVIEW_PATH, PREVIEW_PROBE_PATH, PREVIEW_READY, PREVIEW_RENDER } from '../../protocol/preview';

export { PREVIEW_PATH, PREVIEW_PROBE_PATH, PREVIEW_READY, PREVIEW_RENDER };

/** The probe's control: the one URL the allowlist lets the frame reach. */
export const PROBE_CONTROL_QUERY = 'ok';

/** A Host header we can name in the policies (no IPv6 literal: URLPattern reads its colons as groups). */
function policyHost(host: string | undefined): string | null {
  return host !== undefined && /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/.test(host) ? host : null;
}

/** The shell's Content-Security-Policy; `host` null: the probe is refused, so the page's scripts stay off. */
export function previewCsp(nonce: string, host: string | null): string {
  return [
    'sandbox allow-scripts',
    "default-src 'none'",
    `script-src 'nonce-${nonce}' 'unsafe-eval'`,
    "style-src 'unsafe-inline'",
    host ? `img-src data: blob: ${host}${PREVIEW_PROBE_PATH}` : 'img-src data: blob:',
    'font-src data:',
    'media-src data: blob:',
    "connect-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
    // The CSP Level 3 switch; this Chromium does not know it yet (it logs an unrecognised directive).
    "webrtc 'block'",
  ].join('; ');
}

/** The Connection-Allowlist: nothing but the probe's control image; WebRTC blocked. */
export function previewConnectionAllowlist(host: string | null): string {
  return host ? `("http{s}?://${host}${PREVIEW_PROBE_PATH}?${PROBE_CONTROL_QUERY}");webrtc=block` : '();webrtc=block';
}

/**
 * Splits a page into pieces of HTML and the classic or module scripts between them, as the HTML parser would
 * find them (comments, raw-text elements, templates and quoted attribute values skipped). A start tag with inline
 * handlers (onclick=...) ends a piece, so that the shell turns them into functions before the parser goes on.
 * Not a security boundary: whatever it gets wrong, a script it misses cannot run (no nonce) and a piece it takes
 * for a script runs where every script of the page runs. Browser code, as source text; the unit tests run it.
 */
export const SPLIT_PAGE_SOURCE = String.raw`function splitPage(html) {
  var out = [], from = 0, i = 0, n = html.length, lower = html.toLowerCase(), templates = 0;
  var RAW = /^(style|textarea|title|xmp|iframe|noembed|noframes|noscript)$/;
  var JS = /^(|module|(text|application)\/(x-)?(javascript|ecmascript)|text\/(jscript|livescript)|text\/javascript1\.[0-5])$/;
  function flush(to) { if (to > from) out.push({ html: html.slice(from, to) }); from = to; }
  function after(text, at) { var k = lower.indexOf(text, at); return k < 0 ? n : k + text.length; }
  while (i < n) {
    var lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (html.startsWith('<!' + '--', lt)) { i = after('--' + '>', lt + 4); continue; }
    var c = html.charAt(lt + 1);
    if (c === '!' || c === '?') { i = after('>', lt + 2); continue; }
    var end = c === '/';
    var name = /^[a-zA-Z][^\s\/>]*/.exec(html.slice(end ? lt + 2 : lt + 1, lt + 66));
    if (!name) { i = end ? after('>', lt + 2) : lt + 1; continue; }
    var tag = name[0].toLowerCase();
    var j = (end ? lt + 2 : lt + 1) + name[0].length, attrs = {}, handlers = false;
    for (;;) {
      while (j < n && /[\s\/]/.test(html.charAt(j))) j++;
      if (j >= n || html.charAt(j) === '>') break;
      var a = /^[^\s\/>=]+|^=[^\s\/>=]*/.exec(html.slice(j, j + 1024));
      var attr = a ? a[0].toLowerCase() : html.charAt(j);
      j += attr.length;
      while (j < n && /\s/.test(html.charAt(j))) j++;
      var value = '';
      if (html.charAt(j) === '=') {
        j++;
        while (j < n && /\s/.test(html.charAt(j))) j++;
        var q = html.charAt(j);
        if (q === '"' || q === "'") {
          var close = html.indexOf(q, j + 1);
          if (close < 0) close = n;
          value = html.slice(j + 1, close);
          j = close + 1;
        } else {
          value = /^[^\s>]*/.exec(html.slice(j, j + 65536))[0];
          j += value.length;
        }
      }
      if (!Object.prototype.hasOwnProperty.call(attrs, attr)) attrs[attr] = value;
      if (/^on./.test(attr)) handlers = true;
    }
    var tagEnd = j >= n ? n : j + 1;
    if (end) {
      if (tag === 'template' && templates > 0) templates--;
      i = tagEnd;
      continue;
    }
    if (tag === 'template') templates++;
    if (tag === 'script') {
      var closeAt = lower.indexOf('<\/script', tagEnd);
      var code = html.slice(tagEnd, closeAt < 0 ? n : closeAt);
      var scriptEnd = closeAt < 0 ? n : after('>', closeAt + 8);
      var type = (Object.prototype.hasOwnProperty.call(attrs, 'type') ? attrs.type : '').trim().toLowerCase();
      var has = function (k) { return Object.prototype.hasOwnProperty.call(attrs, k); };
      if (templates === 0 && JS.test(type) && !has('src') && !has('nomodule')) {
        flush(lt);
        out.push({ script: code, module: type === 'module' });
        from = scriptEnd;
      }
      i = scriptEnd;
      continue;
    }
    // A refresh would load another page into the frame, where nothing of this one holds.
    if (tag === 'meta' && Object.prototype.hasOwnProperty.call(attrs, 'http-equiv') && attrs['http-equiv'].trim().toLowerCase() === 'refresh') {
      flush(lt);
      from = i = tagEnd;
      continue;
    }
    if (RAW.test(tag)) { i = after('</' + tag, tagEnd); i = i >= n ? n : after('>', i); }
    else if (tag === 'plaintext') i = n;
    else i = tagEnd;
    if (handlers && templates === 0) flush(tagEnd);
  }
  flush(n);
  return out;
}`;

/**
 * The shell's script. Order matters: WebRTC is gone from this realm before the probe, the probe before the
 * "ready", and the page's code runs only after all of it.
 */
const SHELL_SCRIPT = String.raw`(function () {
  'use strict';
  var win = window, doc = document, parentWin = parent;
  var apply = Reflect.apply, globalEval = win.eval, makeFunction = Function;
  var docWrite = Document.prototype.write, docOpen = Document.prototype.open, docClose = Document.prototype.close;
  var addListener = EventTarget.prototype.addEventListener;
  var getAttr = Element.prototype.getAttribute, hasAttr = Element.prototype.hasAttribute, qsa = Element.prototype.querySelectorAll;
  var takeRecords = MutationObserver.prototype.takeRecords, observe = MutationObserver.prototype.observe;
  ${SPLIT_PAGE_SOURCE}

  // 1. No WebRTC in the one realm the page's code runs in.
  var names = Object.getOwnPropertyNames(win).filter(function (k) { return /^(webkit|moz)?RTC/.test(k); });
  ['RTCPeerConnection', 'webkitRTCPeerConnection', 'mozRTCPeerConnection', 'RTCIceTransport', 'RTCDataChannel'].forEach(function (k) {
    if (names.indexOf(k) < 0) names.push(k);
  });
  var webrtcGone = true;
  names.forEach(function (k) {
    try { delete win[k]; } catch (e) { /* checked below */ }
    if (k in win) webrtcGone = false;
  });

  // 2. Does the browser confine this frame's connections? The control (allowed) must load and the probe (allowed
  //    by the CSP, not by the Connection-Allowlist) must fail, without a CSP refusal.
  var cspRefused = false, answers = {}, decided = false;
  addListener.call(doc, 'securitypolicyviolation', function () { cspRefused = true; });
  function load(url, key) {
    var img = new Image();
    img.onload = function () { answers[key] = true; decide(); };
    img.onerror = function () { answers[key] = false; decide(); };
    img.src = url;
  }
  function decide() {
    if (decided || !('control' in answers) || !('probe' in answers)) return;
    decided = true;
    start(answers.control === true && answers.probe === false && !cspRefused && webrtcGone);
  }
  load('${PREVIEW_PROBE_PATH}?${PROBE_CONTROL_QUERY}', 'control');
  load('${PREVIEW_PROBE_PATH}?n=' + Math.random().toString(36).slice(2), 'probe');
  setTimeout(function () { if (!decided) { decided = true; start(false); } }, 5000);

  function start(scripts) {
    var done = false;
    addListener.call(win, 'message', function (e) {
      var d = e.data;
      if (done || e.source !== parentWin || !d || d.type !== '${PREVIEW_RENDER}' || typeof d.html !== 'string') return;
      done = true;
      render(d.html, scripts);
    });
    parentWin.postMessage({ type: '${PREVIEW_READY}', scripts: scripts }, '*');
  }

  // 3. The page, piece by piece: each script runs where it stands (it sees the document so far; its
  //    document.write lands after it); module scripts run, in strict mode, once the HTML is written.
  function fail(err) { setTimeout(function () { throw err; }); }
  function run(code, strict) {
    try { globalEval(strict ? '"use strict";' + code : code); } catch (err) { fail(err); }
  }
  // A link followed would load another page into the frame: the preview stays on this one (a link to a place
  // in it still scrolls there).
  function keepLinks(e) {
    var t = e.target;
    var link = t && t.nodeType === 1 && t.closest ? t.closest('a, area') : null;
    var href = link && (apply(getAttr, link, ['href']) || apply(getAttr, link, ['xlink:href']));
    if (!href) return;
    var here = doc.baseURI.split('#')[0];
    var to = new URL(href, doc.baseURI).href;
    if (to.indexOf('#') < 0 || to.split('#')[0] !== here) e.preventDefault();
  }
  function render(html, scripts) {
    apply(docOpen, doc, []);
    apply(addListener, win, ['click', keepLinks, true]);
    apply(addListener, win, ['auxclick', keepLinks, true]);
    var observer = scripts ? handlers() : null;
    var pieces = splitPage(html), modules = [];
    for (var k = 0; k < pieces.length; k++) {
      var p = pieces[k];
      if (typeof p.html === 'string') {
        apply(docWrite, doc, [p.html]);
        if (observer) convertRecords(apply(takeRecords, observer, []));
      } else if (scripts) {
        if (p.module) modules.push(p.script);
        else run(p.script, false);
      }
    }
    for (var m = 0; m < modules.length; m++) run(modules[m], true);
    apply(docClose, doc, []);
  }

  // 4. Inline handlers (onclick="...") are code the policy refuses as written: each becomes a function, when its
  //    element is written, when it changes, and at the latest when its event reaches it.
  var compiled = new WeakMap();
  function handlerFor(el, name) {
    if (!el || el.nodeType !== 1 || name.slice(0, 2) !== 'on' || !apply(hasAttr, el, [name])) return;
    var src = apply(getAttr, el, [name]);
    var seen = compiled.get(el) || {};
    if (seen[name] === src) return;
    seen[name] = src;
    compiled.set(el, seen);
    try { el[name] = makeFunction('event', src); } catch (err) { fail(err); }
  }
  function convertTree(el) {
    if (!el || el.nodeType !== 1) return;
    var all = [el].concat(Array.prototype.slice.call(apply(qsa, el, ['*'])));
    for (var i = 0; i < all.length; i++) {
      var attrs = all[i].attributes;
      for (var j = 0; j < attrs.length; j++) handlerFor(all[i], attrs[j].name);
    }
  }
  function convertRecords(records) {
    for (var i = 0; i < records.length; i++) {
      var r = records[i];
      if (r.type === 'attributes') handlerFor(r.target, r.attributeName || '');
      for (var j = 0; j < r.addedNodes.length; j++) convertTree(r.addedNodes[j]);
    }
  }
  function handlers() {
    var types = {};
    [HTMLElement.prototype, SVGElement.prototype, Element.prototype, Document.prototype, Window.prototype].forEach(function (proto) {
      Object.getOwnPropertyNames(proto).forEach(function (k) { if (k.slice(0, 2) === 'on') types[k.slice(2)] = true; });
    });
    Object.keys(types).forEach(function (type) {
      apply(addListener, doc, [type, function (e) { handlerFor(e.target, 'on' + type); }, true]);
    });
    var observer = new MutationObserver(convertRecords);
    apply(observe, observer, [doc, { childList: true, subtree: true, attributes: true }]);
    return observer;
  }
})();`;

/** The shell page; its one script carries the nonce. */
export function previewShell(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Preview</title></head><body><script nonce="${nonce}">${SHELL_SCRIPT}</script></body></html>
`;
}

/** A transparent 1x1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export function registerPreviewRoute(app: Hono<AppEnv>): void {
  app.get(PREVIEW_PATH, (c) => {
    const nonce = randomBytes(18).toString('base64url');
    const host = policyHost(c.req.header('host'));
    return c.body(previewShell(nonce), 200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': previewCsp(nonce, host),
      'Connection-Allowlist': previewConnectionAllowlist(host),
      'X-DNS-Prefetch-Control': 'off',
      // A fresh nonce each time.
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
  });
  // Loaded by the shell (an opaque origin: no Cross-Origin-Resource-Policy), never cached so that the control
  // really goes out.
  app.get(PREVIEW_PROBE_PATH, (c) =>
    c.body(new Uint8Array(PIXEL), 200, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }),
  );
}
