/** Which events match an Inspector / `replay --events` filter, and one event as one readable line. Pure. */
import type { ProjectedEvent } from '../projections/projection';
import { slugsOf } from './state';

export interface EventFilter {
  /** Event types; `reply.*` matches every type starting with `reply.`. Empty or absent: any type. */
  types?: readonly string[];
  /** Only events that change this conversation. */
  conversation?: string;
  /** Inclusive time range, ms. */
  from?: number;
  to?: number;
  /** Case-insensitive text anywhere in the event's type, id or payload. */
  text?: string;
}

export function typeMatches(type: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return true;
  for (const p of patterns) {
    if (p.endsWith('*') ? type.startsWith(p.slice(0, -1)) : type === p) return true;
  }
  return false;
}

export function matchesFilter(event: ProjectedEvent, filter: EventFilter): boolean {
  if (filter.types !== undefined && !typeMatches(event.type, filter.types)) return false;
  if (filter.from !== undefined && event.at < filter.from) return false;
  if (filter.to !== undefined && event.at > filter.to) return false;
  if (filter.conversation !== undefined && !slugsOf(event).includes(filter.conversation)) return false;
  if (filter.text !== undefined && filter.text !== '') {
    const needle = filter.text.toLowerCase();
    if (!`${event.type} ${event.id} ${JSON.stringify(event.payload)}`.toLowerCase().includes(needle)) return false;
  }
  return true;
}

/** Positions (1-based) of the matching events. */
export function filterEvents(events: readonly ProjectedEvent[], filter: EventFilter): number[] {
  const out: number[] = [];
  for (let i = 0; i < events.length; i++) if (matchesFilter(events[i] as ProjectedEvent, filter)) out.push(i + 1);
  return out;
}

/** A time given as milliseconds since 1970 or an ISO 8601 date; null when it is neither. */
export function parseTime(text: string): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

const iso = (ms: number) => (Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : String(ms));

/** `N  time  type vV  slugs  id  payload` on one line (payload cut to `max` characters). */
export function describeEvent(event: ProjectedEvent, position: number, max = 120): string {
  const slugs = slugsOf(event);
  const payload = JSON.stringify(event.payload);
  const cut = payload.length > max ? `${payload.slice(0, max - 3)}...` : payload;
  return `${position}  ${iso(event.at)}  ${event.type} v${event.v}  ${slugs.length > 0 ? slugs.join(',') : '-'}  ${event.id}  ${cut}`;
}
