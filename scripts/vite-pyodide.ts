/**
 * Vite plugin: Pyodide served from the app's own origin (DESIGN rule 11; issue 8 item 5). The runtime files of the
 * `pyodide` npm package (its loader, the wasm module and its glue, the standard library and the lock file) are
 * copied into the build under /assets/pyodide-<version>/ (versioned, so the static server caches them immutably)
 * and served from node_modules by the dev server. The code viewer's worker imports the loader from there
 * (src/viewer/pyodide-base.ts); nothing comes from a CDN.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';
import { PYODIDE_BASE } from '../src/viewer/pyodide-base';

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('pyodide/package.json'));

/** What loadPyodide fetches at start: the loader, the Emscripten glue and wasm, the stdlib, the lock file. */
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'] as const;

const TYPES: Record<string, string> = {
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.json': 'application/json; charset=utf-8',
};

export function pyodideAssets(): Plugin {
  return {
    name: 'parley-pyodide',
    generateBundle() {
      for (const file of PYODIDE_FILES) {
        this.emitFile({ type: 'asset', fileName: `${PYODIDE_BASE.slice(1)}${file}`, source: readFileSync(join(packageDir, file)) });
      }
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        const file = path.startsWith(PYODIDE_BASE) ? path.slice(PYODIDE_BASE.length) : '';
        if (!(PYODIDE_FILES as readonly string[]).includes(file)) return next();
        res.setHeader('Content-Type', TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream');
        createReadStream(join(packageDir, file)).pipe(res);
      });
    },
  };
}
