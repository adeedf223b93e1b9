/**
 * A Node module hook that gives tsx the one Vite feature the app's code uses: `import.meta.glob` of raw files,
 * eager (src/updates/feed.ts: `import.meta.glob('./entries/*.md', { query: '?raw', import: 'default', eager: true })`).
 * Vite replaces the call at build time; under Node (npm run bench, tsx scripts) this hook replaces it the same way,
 * with an object literal of { './dir/name.ext': 'file text' }, read when the module loads. Any other form of
 * `import.meta.glob` throws a clear error instead of Node's "glob is not a function".
 *
 * Use: `register('./scripts/vite-glob-hook.mjs', import.meta.url)` (node:module) before importing app code, or
 * `node --import ./scripts/vite-glob-register.mjs`. Works on either side of tsx's own hook: it rewrites the source
 * before or after tsx turns it into JavaScript (a TypeScript type argument `<string>` is allowed).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `import.meta.glob<T>('pattern', { ...options })`: the pattern and the options' text. */
const CALL = /import\.meta\.glob\s*(?:<[^>()]*>)?\s*\(\s*(["'`])([^"'`]+)\1\s*(?:,\s*(\{[^}]*\}))?\s*\)/g;

/** The files of `pattern` (only `./dir/*.ext` or `./dir/*`, what the app uses) as Vite's keys, sorted. */
export function globFiles(fromFile, pattern) {
  const m = /^(\.{1,2}\/(?:[^*?{}[\]]+\/)?)\*(\.[\w.]+)?$/.exec(pattern);
  if (!m) throw new Error(`import.meta.glob under Node: only './dir/*.ext' patterns are supported, not '${pattern}' (${fromFile})`);
  const [, prefix, ext = ''] = m;
  const dir = join(dirname(fromFile), prefix);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => e.name)
    .sort()
    .map((name) => ({ key: `${prefix}${name}`, path: join(dir, name) }));
}

/** `source` with every eager raw `import.meta.glob` call replaced by its files' texts. */
export function rewriteGlobs(source, fromFile) {
  return source.replace(CALL, (_call, _q, pattern, options = '') => {
    const compact = options.replace(/\s+/g, '');
    const eager = /eager:true/.test(compact);
    const raw = /query:(["'`])\?raw\1/.test(compact);
    const asDefault = /import:(["'`])default\1/.test(compact);
    if (!eager || !raw || !asDefault) {
      throw new Error(`import.meta.glob under Node: only { query: '?raw', import: 'default', eager: true } is supported (${fromFile})`);
    }
    const entries = globFiles(fromFile, pattern).map((f) => `${JSON.stringify(f.key)}: ${JSON.stringify(readFileSync(f.path, 'utf8'))}`);
    return `({${entries.join(', ')}})`;
  });
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.startsWith('file:') || /\/node_modules\//.test(url) || result.source == null) return result;
  const text = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source);
  if (!text.includes('import.meta.glob')) return result;
  return { ...result, source: rewriteGlobs(text, fileURLToPath(url)) };
}
