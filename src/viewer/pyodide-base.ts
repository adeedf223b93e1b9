/**
 * Where the app serves Pyodide's runtime files (with a trailing slash): a folder named for the package's version
 * under /assets/, so the gateway caches it immutably. The build copies the files there and the dev server serves
 * them there (scripts/vite-pyodide.ts); the viewer's worker loads Pyodide from it.
 */
import { version } from 'pyodide/package.json';

export const PYODIDE_BASE = `/assets/pyodide-${version}/`;
