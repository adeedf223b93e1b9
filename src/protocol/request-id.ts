/**
 * The requestId every costly call may carry (spec 000 section 7): the idempotency key of its charge and the key its
 * reply is bound and kept under (docs/gateway.md, "Request ids"). 8 to 100 characters of well-formed text without a
 * NUL: the database stores it as text, which holds neither a NUL nor half of a surrogate pair, and a key it cannot
 * store would fail every batched statement it rides in (bindings and $0 entries are written behind in batches).
 */
import { z } from 'zod';

/** A NUL, or a UTF-16 surrogate without its other half: what PostgreSQL text cannot hold. */
export const NOT_STORABLE_TEXT = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const RequestIdSchema = z
  .string()
  .min(8)
  .max(100)
  .refine((s) => !NOT_STORABLE_TEXT.test(s), { message: 'must be well-formed text without NUL characters' });
