/**
 * The build's own checks: the Node hook that gives tsx Vite's `import.meta.glob` (npm run bench imports the engine,
 * which imports src/updates/feed.ts) reads the same files Vite bundles; the docs check finds file paths in markdown.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { namedPaths } from '../../../scripts/check-docs.mjs';
import { rewriteGlobs } from '../../../scripts/vite-glob-hook.mjs';
import { parseEntry, UPDATE_ENTRIES } from '../../../src/updates/feed';

const FEED = resolve(__dirname, '../../../src/updates/feed.ts');

describe('the import.meta.glob hook for Node', () => {
  it("gives the updates feed the same entries as Vite's glob", () => {
    const source = readFileSync(FEED, 'utf8');
    const line = source.split('\n').find((l) => l.includes('import.meta.glob'));
    expect(line).toBeDefined();
    const rewritten = rewriteGlobs(line as string, FEED);
    expect(rewritten).not.toContain('import.meta.glob');
    const files = JSON.parse(rewritten.slice(rewritten.indexOf('({') + 1, rewritten.lastIndexOf('})') + 1)) as Record<string, string>;
    const ids = Object.entries(files).map(([name, text]) => parseEntry(name, text).id);
    expect(ids.sort()).toEqual(UPDATE_ENTRIES.map((e) => e.id).sort());
    expect(ids.length).toBeGreaterThanOrEqual(10);
  });

  it('refuses a form it does not implement, with a clear error', () => {
    expect(() => rewriteGlobs("import.meta.glob('./entries/*.md')", FEED)).toThrow(/only \{ query: '\?raw', import: 'default', eager: true \}/);
    expect(() => rewriteGlobs("import.meta.glob('./**/*.md', { query: '?raw', import: 'default', eager: true })", FEED)).toThrow(/only '\.\/dir\/\*\.ext' patterns/);
  });
});

describe('the docs check', () => {
  it('takes file paths from code spans and links, and leaves commands, routes, packages and MIME types', () => {
    const text = [
      'See `src/updates/feed.ts` and [the protocol](protocol.md); `routes/chat.ts` too.',
      'Run `npm run bench`, call `POST /api/scrape` or `/api/scrape`, install `@hono/node-server` or `hono/jsx`.',
      'Serve `text/html` and `{a,b}/x.ts`; the folder `src/worker/rooms/` is new.',
    ].join('\n');
    expect(namedPaths(text)).toEqual([
      { path: 'src/updates/feed.ts', line: 1 },
      { path: 'routes/chat.ts', line: 1 },
      { path: 'protocol.md', line: 1 },
      { path: 'src/worker/rooms/', line: 3 },
    ]);
  });
});
