/**
 * The engine's modules import each other without cycles (a cycle makes evaluation order decide whether a binding
 * exists yet, and ties domains together that docs/architecture.md keeps apart). Type-only imports are erased by
 * the compiler and do not count; dynamic imports are not followed.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Runtime imports of a module: `import x from`, `import {a} from`, `export {a} from`, `import './side-effect'`. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'/gm)) {
    const [, typeOnly, spec] = m;
    if (typeOnly || !spec?.startsWith('.')) continue;
    const base = resolve(dirname(file), spec);
    const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
    if (target) out.push(target);
  }
  return out;
}

/** Every cycle's modules (strongly connected components of more than one module, or a module importing itself). */
function importCycles(files: readonly string[]): string[][] {
  const graph = new Map(files.map((f) => [f, runtimeImports(f).filter((t) => files.includes(t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(relative(ROOT, w));
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

describe('import cycles', () => {
  it('finds a cycle when there is one, and ignores type-only imports (the check itself works)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const a = write('a.ts', "import { b } from './b';\nexport const a = b + 1;\n");
    const b = write('b.ts', "import {\n  c,\n} from './c';\nexport const b = c;\n");
    const c = write('c.ts', "import type { A } from './d';\nexport { a as c } from './a';\n");
    const d = write('d.ts', "import type { a } from './a';\nexport type A = typeof a;\n");
    const rel = (p: string) => relative(ROOT, p);
    expect(importCycles([a, b, c, d])).toEqual([[rel(a), rel(b), rel(c)].sort()]);
    // The same modules with c's re-export made type-only: no cycle.
    write('c.ts', "import type { A } from './d';\nexport type { A as c } from './d';\n");
    expect(importCycles([a, b, c, d])).toEqual([]);
  });

  it('the engine (src/worker), the events, projections, protocol and the view have none', () => {
    const files = ['src/worker', 'src/shared', 'src/events', 'src/projections', 'src/protocol', 'src/ui'].flatMap((d) => sources(join(ROOT, d)));
    expect(importCycles(files)).toEqual([]);
  });
});
