import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { pyodideAssets } from './scripts/vite-pyodide';
import { serviceWorker } from './scripts/vite-sw';

const gateway = process.env.PARLEY_GATEWAY_URL ?? 'http://127.0.0.1:8787';

export default defineConfig({
  plugins: [react(), pyodideAssets(), serviceWorker()],
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    manifest: true,
    sourcemap: true,
    target: 'es2022',
    // Rolldown gives every module shared by the entry and a lazy chunk a small chunk of its own (12 files on the
    // first page, each gzipped apart): the first page's shared modules go in one chunk instead (112.9 -> 110.4 KB
    // gzip, docs/benchmarks.md "cold start"). List only modules the first page imports statically, or they would
    // move into it.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            {
              name: 'shared',
              test: /node_modules[\\/](react|react-dom|scheduler|valtio|proxy-compare|comlink)[\\/]|src[\\/]ui[\\/](engine|state|router|composer-state|media[\\/]files)\.tsx?$|src[\\/]worker[\\/]tab|src[\\/]protocol[\\/](layout|speech-defaults|auto-model|conversation-updates)\.ts$/,
            },
          ],
        },
      },
    },
  },
  worker: {
    format: 'es',
    // Workers have no DOM: the Markdown parser (PDF export in the engine worker) must take the entity decoder's
    // plain build, not the `browser` one that decodes through document.createElement.
    plugins: () => [
      {
        name: 'parley-worker-entities',
        enforce: 'pre' as const,
        resolveId(id: string) {
          return id === 'decode-named-character-reference' ? fileURLToPath(new URL('./node_modules/decode-named-character-reference/index.js', import.meta.url)) : null;
        },
      },
    ],
  },
  server: {
    proxy: {
      '/api': gateway,
      '/auth': gateway,
      '/notion': gateway,
      '/preview': gateway,
    },
  },
});
