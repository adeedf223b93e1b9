// npm run check:docs (in npm test): every file path that README.md and docs/*.md name exists in the repository.
// A path is a `code span` or a link target that looks like one: it has a '/' or ends in a file extension we keep
// (.ts, .md, ...), with no spaces, wildcards or braces. It is found when it exists from the repository root or from
// the doc's folder, or when it is the end of a file's or folder's path in the repository (docs often write
// `routes/chat.ts` for src/server/routes/chat.ts). Prints each missing path with the doc and line; exits 1 if any.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Names the docs give to things outside the repository, on purpose. */
const OUTSIDE = new Map([
  ['DESIGN.md', 'the house plan, in the shared folder'],
  ['spec/', 'the spec, in the shared folder'],
  ['pyodide.mjs', 'a file of the pyodide package'],
  ['pyodide.asm.mjs', 'a file of the pyodide package'],
  ['pyodide.asm.wasm', 'a file of the pyodide package'],
  ['pyodide-lock.json', 'a file of the pyodide package'],
  ['index.json', 'a file inside an exported zip'],
  ['settings.yml', "SearXNG's configuration"],
  ['gateway.json', 'the file the gateway writes for the admin command'],
  ['dist/client/index.html', 'the built client (vite build)'],
]);
const EXT = /\.(ts|tsx|mjs|cjs|js|json|md|css|html|sh|sql|svg|png|webmanifest|txt|yml|yaml|toml|wasm)$/;

/** Files of the repository (tracked and new, not ignored), with every folder above them. */
function repoPaths() {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && existsSync(join(root, f)));
  const all = new Set(files);
  for (const f of files) for (let d = dirname(f); d !== '.'; d = dirname(d)) all.add(`${d}/`);
  return [...all];
}

/** Candidate paths in a markdown text, with their line numbers. */
export function namedPaths(text) {
  const out = [];
  text.split('\n').forEach((line, i) => {
    const spans = [...line.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
    const links = [...line.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]);
    for (const raw of [...spans, ...links]) {
      const p = raw.trim().replace(/[:,.;]+$/, '').replace(/:\d+(-\d+)?$/, '');
      if (OUTSIDE.has(p) || /[\s*{}<>$|()[\]'"=?:+,…]|^[a-z]+:\/\/|^\/|^~|^-|^\.\.\.$|^@/.test(p) || p.includes('...')) continue;
      if (/^[\w.-]+\/[\w.-]+$/.test(p) && !EXT.test(p) && !p.startsWith('src/') && !p.startsWith('docs/') && !p.startsWith('tests/') && !p.startsWith('scripts/') && !p.startsWith('public/')) continue; // an npm package or a MIME type (text/html), not a path
      if (!p.includes('/') && !EXT.test(p)) continue;
      if (/^[\d.]+$/.test(p) || /^\.\w+$/.test(p)) continue; // a version or a bare extension
      out.push({ path: p, line: i + 1 });
    }
  });
  return out;
}

export function checkDocs() {
  const paths = repoPaths();
  const docs = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const missing = [];
  for (const doc of docs) {
    for (const { path, line } of namedPaths(readFileSync(join(root, doc), 'utf8'))) {
      const clean = path.replace(/^\.\//, '');
      const dir = clean.endsWith('/') ? clean : null;
      const found =
        existsSync(join(root, clean)) ||
        existsSync(join(root, dirname(doc), clean)) ||
        paths.some((p) => p === clean || p.endsWith(`/${clean}`) || (dir !== null && (p === dir || p.endsWith(`/${dir}`))));
      if (!found) missing.push(`${doc}:${line}: ${path}`);
    }
  }
  return missing;
}

/** Relative paths (`./x.ts`, `../y/z.tsx`) that comments in src name, resolved from the file: they must exist too. */
export function checkCommentPaths() {
  const missing = [];
  const files = repoPaths().filter((f) => f.startsWith('src/') && /\.(ts|tsx|mjs)$/.test(f));
  for (const file of files) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!/^\s*(\*|\/\/|\/\*)/.test(line)) return;
        for (const m of line.matchAll(/(\.{1,2}\/[\w./-]+\.(?:tsx|ts|mjs))\b/g)) {
          if (!existsSync(join(root, dirname(file), m[1]))) missing.push(`${file}:${i + 1}: ${m[1]}`);
        }
      });
  }
  return missing;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = [...checkDocs(), ...checkCommentPaths()];
  for (const m of missing) console.log(`missing: ${m}`);
  console.log(missing.length === 0 ? 'docs: every file path named in the docs and in comments exists' : `docs: ${missing.length} file path(s) named in the docs do not exist`);
  process.exit(missing.length === 0 ? 0 : 1);
}
