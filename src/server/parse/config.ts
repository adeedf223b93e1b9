/**
 * Budgets for untrusted content (docs/gateway.md, "Untrusted content"): the parse pool's threads and per-item
 * budgets, and the caps on upload bytes held in memory.
 */
import { SERVER_MAX_FILE_SIZE } from '../../protocol/attachments';
import { intVar, type Env } from '../env-vars';
import type { ParseJobKind } from './jobs';

export interface ParseConfig {
  /** Worker threads reading untrusted content (PARLEY_PARSE_THREADS, at least 2). */
  threads: number;
  /** Wall-clock budget of one item, by kind, ms, from the moment a thread starts it (PARLEY_PARSE_*_MS). */
  budgetMs: Record<ParseJobKind, number>;
  /** Heap limit of one thread, MB (PARLEY_PARSE_MEMORY_MB): an item that needs more fails, the thread is replaced. */
  memoryMb: number;
  /** Items one session may have waiting for a thread (PARLEY_PARSE_QUEUE_PER_SESSION). */
  maxWaitingPerSession: number;
  /** Whether the gateway starts the threads at its start and has them load pdf.js (PARLEY_PARSE_WARM, 1 or 0). */
  warmAtStart: boolean;
}

export interface UploadLimits {
  /** Upload bytes held in memory at once, all sessions together (PARLEY_UPLOAD_MAX_MB); past it 503. */
  totalBytes: number;
  /** Upload bytes held in memory at once for one session (PARLEY_UPLOAD_SESSION_MAX_MB); past it 429. */
  perSessionBytes: number;
}

const MB = 1024 * 1024;

export function loadParseConfig(env: Env): ParseConfig {
  return {
    threads: intVar(env, 'PARLEY_PARSE_THREADS', 2, 2, 64),
    budgetMs: {
      page: intVar(env, 'PARLEY_PARSE_PAGE_MS', 10_000, 50, 600_000),
      document: intVar(env, 'PARLEY_PARSE_DOCUMENT_MS', 60_000, 50, 600_000),
      image: intVar(env, 'PARLEY_PARSE_IMAGE_MS', 10_000, 50, 600_000),
      upscale: intVar(env, 'PARLEY_PARSE_UPSCALE_MS', 60_000, 50, 600_000),
    },
    memoryMb: intVar(env, 'PARLEY_PARSE_MEMORY_MB', 768, 64, 16_384),
    maxWaitingPerSession: intVar(env, 'PARLEY_PARSE_QUEUE_PER_SESSION', 32, 1, 10_000),
    warmAtStart: intVar(env, 'PARLEY_PARSE_WARM', 1, 0, 1) === 1,
  };
}

/** The least either cap may be: one upload of the largest file must fit (else it would be refused for ever). */
const LEAST_UPLOAD_MB = Math.ceil((SERVER_MAX_FILE_SIZE + 64 * 1024) / MB);

export function loadUploadLimits(env: Env): UploadLimits {
  const totalBytes = intVar(env, 'PARLEY_UPLOAD_MAX_MB', 256, LEAST_UPLOAD_MB, 65_536) * MB;
  const perSessionBytes = intVar(env, 'PARLEY_UPLOAD_SESSION_MAX_MB', 128, LEAST_UPLOAD_MB, 65_536) * MB;
  return { totalBytes, perSessionBytes: Math.min(perSessionBytes, totalBytes) };
}
