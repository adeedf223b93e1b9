import { describe, expect, it } from 'vitest';
import { dateGroupLabel, groupByDate } from '../../../src/ui/components/date-groups';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// A fixed clock: Friday 2026-11-27, 15:00 UTC.
const NOW = Date.UTC(2026, 10, 27, 15, 0, 0);

describe('sidebar date groups (issue 16)', () => {
  it('labels by calendar day: Today, Yesterday, Previous 7 days, Previous 30 days, months of the last year, Older', () => {
    const label = (at: number) => dateGroupLabel(at, NOW, 'UTC');
    expect(label(Date.UTC(2026, 10, 27, 0, 0, 0))).toBe('Today'); // this midnight
    expect(label(Date.UTC(2026, 10, 26, 23, 59, 59))).toBe('Yesterday'); // one second before it
    expect(label(Date.UTC(2026, 10, 26, 0, 0, 0))).toBe('Yesterday');
    expect(label(Date.UTC(2026, 10, 25, 23, 0, 0))).toBe('Previous 7 days');
    expect(label(Date.UTC(2026, 10, 20, 1, 0, 0))).toBe('Previous 7 days'); // 7 days ago
    expect(label(Date.UTC(2026, 10, 19, 23, 0, 0))).toBe('Previous 30 days'); // 8 days ago
    expect(label(Date.UTC(2026, 9, 28, 12, 0, 0))).toBe('Previous 30 days'); // 30 days ago
    expect(label(Date.UTC(2026, 9, 27, 12, 0, 0))).toBe('October'); // 31 days ago
    expect(label(Date.UTC(2026, 0, 3, 12, 0, 0))).toBe('January');
    expect(label(Date.UTC(2025, 11, 3, 12, 0, 0))).toBe('December 2025'); // 11 months back: named with its year
    expect(label(Date.UTC(2025, 10, 30, 12, 0, 0))).toBe('Older'); // 12 months back
    expect(label(NOW + 5 * 60_000)).toBe('Today'); // a clock a little ahead
  });

  it('splits days at midnight where the user is, not at UTC midnight', () => {
    // 00:30 UTC on the 27th is still the evening of the 26th in New York (UTC-5) and already morning in Tokyo (UTC+9).
    const now = Date.UTC(2026, 10, 27, 0, 30, 0);
    const lastNight = Date.UTC(2026, 10, 26, 23, 0, 0); // 18:00 in New York, 08:00 on the 27th in Tokyo
    expect(dateGroupLabel(lastNight, now, 'UTC')).toBe('Yesterday');
    expect(dateGroupLabel(lastNight, now, 'America/New_York')).toBe('Today');
    expect(dateGroupLabel(Date.UTC(2026, 10, 26, 4, 0, 0), now, 'America/New_York')).toBe('Yesterday'); // 23:00 on the 25th there
    expect(dateGroupLabel(Date.UTC(2026, 10, 26, 4, 0, 0), now, 'Asia/Tokyo')).toBe('Yesterday'); // 13:00 on the 26th there
    expect(dateGroupLabel(Date.UTC(2026, 10, 25, 14, 59, 0), now, 'Asia/Tokyo')).toBe('Previous 7 days'); // 23:59 on the 25th there
  });

  it('counts calendar days across a daylight-saving change', () => {
    // Europe/Berlin left summer time on 2026-10-25; a 23-hour or 25-hour day is still one day.
    const now = Date.UTC(2026, 9, 26, 0, 30, 0); // 01:30 on the 26th in Berlin (UTC+1)
    expect(dateGroupLabel(Date.UTC(2026, 9, 24, 22, 30, 0), now, 'Europe/Berlin')).toBe('Yesterday'); // 00:30 on the 25th (UTC+2)
    expect(dateGroupLabel(Date.UTC(2026, 9, 24, 21, 30, 0), now, 'Europe/Berlin')).toBe('Previous 7 days'); // 23:30 on the 24th
  });

  it('keeps pinned conversations on top in their order, then the others newest first in their groups; empty groups left out', () => {
    const c = (id: number, updatedAt: number, pinned = false) => ({ id, updatedAt, pinned });
    const list = [c(1, NOW - 40 * DAY, true), c(2, NOW - 1 * HOUR, true), c(3, NOW - 2 * DAY), c(4, NOW - HOUR), c(5, NOW - 3 * DAY), c(6, NOW - 20 * DAY), c(7, NOW - 2 * HOUR)];
    const groups = groupByDate(list, NOW, 'UTC');
    expect(groups.map((g) => [g.label, g.items.map((x) => x.id)])).toEqual([
      ['Pinned', [1, 2]],
      ['Today', [4, 7]],
      ['Previous 7 days', [3, 5]],
      ['Previous 30 days', [6]],
    ]);
    expect(groupByDate([], NOW, 'UTC')).toEqual([]);
    expect(groupByDate([c(9, NOW - DAY)], NOW, 'UTC').map((g) => g.label)).toEqual(['Yesterday']);
  });
});
