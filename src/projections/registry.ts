/** Every projection of the app. The worker applies them on append and rebuilds them from the log. */
import { conversationsProjection } from './conversations';
import { instructionsProjection } from './instructions';
import { messagesProjection } from './messages';
import { scratchpadProjection } from './scratchpad';
import { foldersProjection } from './folders';
import type { Projection } from './projection';
import type { TableName } from './writes';

export const projections: readonly Projection[] = [
  conversationsProjection,
  messagesProjection,
  instructionsProjection,
  scratchpadProjection,
  foldersProjection,
];

/** Tables owned by the given projections (the only tables a rebuild clears). */
export function ownedTables(list: readonly Projection[] = projections): TableName[] {
  const out = new Set<TableName>();
  for (const p of list) for (const t of p.tables) out.add(t);
  return [...out];
}

/** Meta key under which a projection's applied version is stored. */
export function projectionMetaKey(p: Projection): string {
  return `projection:${p.name}`;
}
