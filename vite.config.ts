import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const gateway = process.env.PARLEY_GATEWAY_URL ?? 'http://127.0.0.1:8787';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    manifest: true,
    sourcemap: true,
    target: 'es2022',
  },
  worker: { format: 'es' },
  server: {
    proxy: {
      '/api': gateway,
      '/auth': gateway,
    },
  },
});
