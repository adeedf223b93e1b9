/**
 * Numeric ids for conversations and messages. Only the leader's engine writes, so one allocator per engine is
 * enough; ids start from the clock (microsecond scale, well below 2^53) and never go below what is stored, so an id
 * is never reused across engines, even after deletes.
 */
export class IdAllocator {
  private last: number;
  constructor(maxExisting: number) {
    this.last = maxExisting;
  }
  next(now: number): number {
    this.last = Math.max(this.last + 1, now * 1000);
    return this.last;
  }
}

const SLUG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Spec 001 section 9: conversation slugs use up to 8 words plus a 7-character random id. */
export function makeSlug(prompt: string, random: Uint8Array): string {
  const words = prompt
    .normalize('NFKD')
    // Accents become separate combining marks under NFKD: drop them, so 'résumé' gives 'resume', not 're sume'.
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 8)
    .map((w) => w.replace(/[^a-z0-9-]/g, ''))
    .filter(Boolean);
  let id = '';
  for (let i = 0; i < 7; i++) id += SLUG_ALPHABET[(random[i] ?? 0) % SLUG_ALPHABET.length];
  return [...words, id].join('-');
}

/** Spec 000 section 3: the default conversation name is the first 10 words of the prompt. */
export function defaultName(prompt: string): string {
  return prompt.trim().split(/\s+/).slice(0, 10).join(' ');
}
