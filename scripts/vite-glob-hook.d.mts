/** Types of scripts/vite-glob-hook.mjs (a Node module hook; see there). */
export function globFiles(fromFile: string, pattern: string): { key: string; path: string }[];
export function rewriteGlobs(source: string, fromFile: string): string;
export function load(url: string, context: unknown, nextLoad: (url: string, context: unknown) => Promise<{ source?: string | ArrayBuffer | Uint8Array | null }>): Promise<unknown>;
