/** Types of scripts/check-docs.mjs. */
export function namedPaths(text: string): { path: string; line: number }[];
export function checkDocs(): string[];
