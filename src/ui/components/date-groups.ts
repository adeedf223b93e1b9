/**
 * The sidebar's date groups (issue 16), pure so it is tested in Node: pinned conversations first under "Pinned",
 * then the others by last activity (updatedAt) under Today, Yesterday, Previous 7 days, Previous 30 days, then
 * a month name ("October"; "December 2025" in another year) for the last 12 months, then "Older". Days are
 * calendar days in the user's time zone (`timeZone`, default the browser's), so midnight splits Today and Yesterday
 * where the user is, whatever the daylight-saving changes in between.
 */

export const PINNED_GROUP = 'Pinned';
export const DATE_GROUPS = { today: 'Today', yesterday: 'Yesterday', week: 'Previous 7 days', month: 'Previous 30 days', older: 'Older' } as const;

export interface DateGroup<C> {
  label: string;
  items: C[];
}

interface Day {
  year: number;
  /** 1 to 12. */
  month: number;
  /** Days since 1970-01-01 of that calendar date (DST-free: a date, not an instant). */
  index: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' });
    formatters.set(key, f);
  }
  return f;
}

function dayOf(at: number, timeZone: string | undefined): Day {
  let year = 1970;
  let month = 1;
  let day = 1;
  for (const part of formatter(timeZone).formatToParts(at)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
  }
  return { year, month, index: Math.round(Date.UTC(year, month - 1, day) / 86_400_000) };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The group label of a conversation last active at `at`, seen at `now`. */
export function dateGroupLabel(at: number, now: number, timeZone?: string): string {
  const today = dayOf(now, timeZone);
  const day = dayOf(at, timeZone);
  const ago = today.index - day.index;
  if (ago <= 0) return DATE_GROUPS.today; // today, or a clock a little ahead
  if (ago === 1) return DATE_GROUPS.yesterday;
  if (ago <= 7) return DATE_GROUPS.week;
  if (ago <= 30) return DATE_GROUPS.month;
  const monthsAgo = (today.year - day.year) * 12 + (today.month - day.month);
  if (monthsAgo < 12) return day.year === today.year ? (MONTHS[day.month - 1] as string) : `${MONTHS[day.month - 1]} ${day.year}`;
  return DATE_GROUPS.older;
}

/**
 * The list in groups: the pinned ones first in their order, then the others newest first, each under its date
 * group. Empty groups are left out; the order within a group is the list's (ties keep their order).
 */
export function groupByDate<C extends { pinned: boolean; updatedAt: number }>(conversations: readonly C[], now: number, timeZone?: string): DateGroup<C>[] {
  const groups: DateGroup<C>[] = [];
  const pinned = conversations.filter((c) => c.pinned);
  if (pinned.length > 0) groups.push({ label: PINNED_GROUP, items: pinned });
  const others = conversations.filter((c) => !c.pinned).sort((a, b) => b.updatedAt - a.updatedAt);
  for (const c of others) {
    const label = dateGroupLabel(c.updatedAt, now, timeZone);
    const last = groups.at(-1);
    if (last && last.label === label && last.label !== PINNED_GROUP) last.items.push(c);
    else groups.push({ label, items: [c] });
  }
  return groups;
}
