/**
 * A batch as one JSON parameter (read with `jsonb_to_recordset($1::text::jsonb)`), with every string made storable:
 * PostgreSQL text holds no NUL and no half of a surrogate pair, and jsonb refuses their escapes, which would fail the
 * whole statement, and with it every row of the batch (others' replies, holds, bindings). Each such character
 * becomes U+FFFD, as a text parameter's half pair already does on its way to the database. Keys and ids are refused
 * at the edge before they get here (protocol/request-id.ts); this covers what the gateway does not choose: model
 * ids an upstream lists, a model's reply text.
 */
import { NOT_STORABLE_TEXT } from '../../protocol/request-id';

const NOT_STORABLE_ALL = new RegExp(NOT_STORABLE_TEXT.source, 'g');

export function jsonParam(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' && NOT_STORABLE_TEXT.test(v) ? v.replace(NOT_STORABLE_ALL, '\uFFFD') : v));
}
