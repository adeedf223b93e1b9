/**
 * Cold start weight of the conversation page: the initial JavaScript a first visit must download before the page
 * runs, i.e. the entry script(s) referenced by dist/client/index.html plus everything they import statically
 * (modulepreload links, the Vite manifest's `imports`, and `import ... from` / `export ... from` in the built
 * files, followed recursively). Dynamic imports (lazy chunks) are not counted. Each file is gzipped on its own
 * (node:zlib, level 9) and the sizes are summed. Target: < 100 KB, issue 16's (168.7 KB before the pages, the
 * message list and the mode controls became lazy chunks, 109.6 KB after; 109.0 KB after analytics, the speech
 * catalogue, the audio player and the banners became lazy and the shared modules one chunk; 99.1 KB after the model
 * picker's list, the export menu, the scrape bar, the notices' bodies, the attachment chips, the token counter, the
 * message catalogue and the folder and conversation menus left the first page and its five icons were drawn without
 * lucide-react's runtime).
 * No baseline (absolute target).
 *
 * If dist/client/index.html is missing, `npx vite build` is run first.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Bench, BenchResult } from './types';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TARGET_KB = 100;

export interface MeasuredFile {
  /** Path relative to the client dir, with '/' separators. */
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface InitialJs {
  files: MeasuredFile[];
  totalGzipBytes: number;
  /** Scripts started as workers by the page (engine, broker): not part of the page's initial JS. */
  workers: MeasuredFile[];
  /** How static imports were found. */
  via: 'manifest+parse' | 'parse';
}

interface ManifestChunk {
  file: string;
  imports?: string[];
  assets?: string[];
  isEntry?: boolean;
}

const isJs = (f: string): boolean => /\.m?js$/.test(f);

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
}

/** Entry scripts and modulepreload links of the HTML, as URLs. */
export function htmlScripts(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attr(m[0], 'src');
    if (src) out.push(src);
  }
  for (const m of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = attr(m[0], 'rel');
    const href = attr(m[0], 'href');
    if (href && rel && rel.toLowerCase().split(/\s+/).includes('modulepreload')) out.push(href);
  }
  return out;
}

/** Specifiers of the static imports and re-exports of a built ES module (not `import()`). */
export function staticImports(code: string): string[] {
  const out: string[] = [];
  const patterns = [
    /(?<![\w$.])import\s*(["'])([^"'\n]+)\1/g, // import "x"
    /(?<![\w$.])import\s*[\w$*{][^;"'()]*?\bfrom\s*(["'])([^"'\n]+)\1/g, // import a, {b} from "x"
    /(?<![\w$.])export\s*(?:\*(?:\s*as\s*[\w$]+)?|\{[^}]*\})\s*from\s*(["'])([^"'\n]+)\1/g, // export * from "x"
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) if (m[2]) out.push(m[2]);
  return out;
}

/** Worker scripts referenced as `new URL("x.js", import.meta.url)`. */
function workerUrls(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/new\s+URL\(\s*(["'])([^"'\n]+\.m?js)\1\s*,\s*import\.meta\.url\s*\)/g)) if (m[2]) out.push(m[2]);
  return out;
}

/** Resolve a URL of the built page (absolute '/assets/x.js' or relative to `fromFile`) to a file in `dir`. */
function resolveUrl(dir: string, url: string, fromFile: string | null): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) return null; // another origin or data:
  const clean = url.split(/[?#]/)[0] ?? '';
  if (clean === '') return null;
  let candidates: string[];
  if (clean.startsWith('/')) {
    // Absolute: under the client dir; with a non-root base the first segments are the base, so try suffixes too.
    const parts = clean.slice(1).split('/');
    candidates = parts.map((_, k) => join(dir, ...parts.slice(k)));
  } else if (clean.startsWith('./') || clean.startsWith('../')) {
    candidates = [resolve(fromFile ? dirname(fromFile) : dir, clean)];
  } else if (fromFile === null) {
    candidates = [join(dir, clean)]; // relative URL in index.html
  } else {
    return null; // a bare specifier cannot be loaded by the browser without an import map
  }
  for (const c of candidates) {
    const n = normalize(c);
    if (!n.startsWith(normalize(dir) + sep)) continue;
    if (existsSync(n)) return n;
  }
  return null;
}

function measure(dir: string, file: string): MeasuredFile {
  const buf = readFileSync(file);
  return { file: relative(dir, file).split(sep).join('/'), bytes: buf.length, gzipBytes: gzipSync(buf, { level: 9 }).length };
}

/** Measure the initial JS of the page built into `dir` (a Vite build's client output). */
export function measureInitialJs(dir: string): InitialJs {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const manifestPath = join(dir, '.vite', 'manifest.json');
  const manifest: Record<string, ManifestChunk> | null = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>)
    : null;
  const byFile = new Map<string, ManifestChunk>();
  if (manifest) for (const chunk of Object.values(manifest)) byFile.set(normalize(join(dir, chunk.file)), chunk);

  const seen = new Set<string>();
  const workers = new Set<string>();
  const queue: string[] = [];
  const add = (file: string | null): void => {
    if (file && isJs(file) && !seen.has(file)) {
      seen.add(file);
      queue.push(file);
    }
  };
  for (const url of htmlScripts(html)) add(resolveUrl(dir, url, null));
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const chunk = byFile.get(normalize(file));
    if (chunk && manifest) {
      for (const key of chunk.imports ?? []) {
        const dep = manifest[key];
        if (dep) add(normalize(join(dir, dep.file)));
      }
      for (const asset of chunk.assets ?? []) if (isJs(asset)) workers.add(normalize(join(dir, asset)));
    }
    const code = readFileSync(file, 'utf8');
    for (const spec of staticImports(code)) add(resolveUrl(dir, spec, file));
    for (const url of workerUrls(code)) {
      const w = resolveUrl(dir, url, file);
      if (w) workers.add(w);
    }
  }
  const files = [...seen].map((f) => measure(dir, f));
  return {
    files,
    totalGzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0),
    workers: [...workers].filter((w) => !seen.has(w)).map((f) => measure(dir, f)),
    via: manifest ? 'manifest+parse' : 'parse',
  };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

const bench: Bench = async () => {
  const dir = join(root, 'dist', 'client');
  const fail = (why: string): BenchResult[] => [
    { name: 'cold start: initial JS of the conversation page (gzip -9)', unit: 'KB', value: Number.NaN, baseline: null, ratio: null, target: `< ${TARGET_KB} KB`, pass: false, notes: why },
  ];
  if (!existsSync(join(dir, 'index.html'))) {
    try {
      execFileSync('npx', ['vite', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    } catch (error) {
      return fail(`vite build failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    if (!existsSync(join(dir, 'index.html'))) return fail('vite build produced no dist/client/index.html');
  }
  const m = measureInitialJs(dir);
  if (m.files.length === 0) return fail('no entry script found in dist/client/index.html');
  const value = m.totalGzipBytes / 1024;
  const list = m.files.map((f) => `${f.file} ${kb(f.gzipBytes)}`).join(', ');
  const workerList = m.workers.length > 0 ? `; worker scripts, not counted: ${m.workers.map((f) => `${f.file} ${kb(f.gzipBytes)}`).join(', ')}` : '';
  return [
    {
      name: 'cold start: initial JS of the conversation page (gzip -9)',
      unit: 'KB',
      value,
      baseline: null,
      ratio: null,
      target: `< ${TARGET_KB} KB`,
      pass: value < TARGET_KB,
      notes: `${m.files.length} file(s) via ${m.via}: ${list}${workerList}`,
    },
  ];
};

export default bench;
