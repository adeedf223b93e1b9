/** The updates feed: the bundled entries, read status per id as engine data (one or all), replay and import. */
import { describe, expect, it } from 'vitest';
import { filter, firstValueFrom } from 'rxjs';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { makeEvent } from '../../../src/events/catalogue';
import { upcast } from '../../../src/events/upcasters';
import { checkPayload } from '../../../src/events/validate';
import { parseEntry, sortEntries, UPDATE_ENTRIES } from '../../../src/updates/feed';
import { foldUpdatesRead, UPDATES_ERROR } from '../../../src/worker/rooms/updates/commands';
import type { UpdatesView } from '../../../src/protocol/account';
import { homeTarget, matchRoute } from '../../../src/ui/router';
import { OFFLINE_UPSCALER_MODEL_ID } from '../../../src/server/media/providers/upscale-offline';
import type { Engine } from '../../../src/worker/engine';
import { useOfflineEngines } from '../engine/offline-engine';

describe('update entries', () => {
  it('are dated markdown files with a title, newest first, each id unique', () => {
    expect(UPDATE_ENTRIES.length).toBeGreaterThanOrEqual(10);
    const ids = UPDATE_ENTRIES.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of UPDATE_ENTRIES) {
      expect(e.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(e.title.length).toBeGreaterThan(0);
      expect(e.text.length).toBeGreaterThan(40);
    }
    const dates = UPDATE_ENTRIES.map((e) => e.date);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it("link to the app's own routes, and together to every route the spec names only in feed links", () => {
    const links = (text: string) => [...text.matchAll(/\]\((\/[^)\s]*)\)/g)].map((m) => m[1]!);
    for (const e of UPDATE_ENTRIES) {
      expect(links(e.text).length, `${e.id} links to no page of the app`).toBeGreaterThan(0);
      for (const href of links(e.text)) {
        const route = matchRoute(href);
        // Every link lands on a page: a named route, or a new conversation reached through the home route.
        if (route.name === 'home') expect(homeTarget(href)).toMatch(/^\/conversation\/new(\?|$)/);
        else expect(route.name).not.toBe('home');
      }
    }
    const all = UPDATE_ENTRIES.flatMap((e) => links(e.text));
    // Spec 001 section 2: conversation with a model parameter; media with mode image, video and audio; gallery; balance; settings.
    expect(all.some((h) => h.startsWith('/conversation/new?model='))).toBe(true);
    for (const mode of ['image', 'video', 'audio']) expect(all).toContain(`/media?mode=${mode}`);
    for (const page of ['/gallery', '/balance', '/settings']) expect(all).toContain(page);
    // The explicit-content setting is announced, and says 18+.
    expect(UPDATE_ENTRIES.some((e) => e.text.includes('**Show explicit content (18+)**') && links(e.text).includes('/settings'))).toBe(true);
  });

  it("has an entry for each capability shipped since the feed began, linking the route it describes", () => {
    const links = (text: string) => [...text.matchAll(/\]\((\/[^)\s]*)\)/g)].map((m) => m[1]!);
    // [words the entry uses, a route it links to]: the capabilities of the sessions after the feed's first entries.
    const shipped: [string, string][] = [
      ['**Publish link**', '/conversation/new'],
      ['**Model settings**', '/conversation/new'],
      ['**Delete selected**', '/conversation/new'],
      ['**Library**', '/library'],
      ['**Study Mode**', '/conversation/new'],
      ['**Default\ninstructions**', '/settings'],
      ['**Inspector**', '/inspector'],
      ['**Upscaler**', '/media?mode=image&model=parley-offline-upscaler'],
      ['$2.38 for 5 seconds or $4.76 for 10 seconds', '/media?mode=video'],
      ['**0.1 XNO**', '/balance'],
      ['**Show explicit content (18+)**', '/settings'],
      ['recovery code', '/wallet'],
    ];
    for (const [words, route] of shipped) {
      const entry = UPDATE_ENTRIES.find((e) => e.text.includes(words));
      expect(entry, `no entry says ${words}`).toBeDefined();
      expect(links(entry!.text), `${entry!.id} does not link ${route}`).toContain(route);
    }
    // The upscaler's link names the built-in model, so it opens the Upscaler itself.
    expect(homeTarget('/media?mode=image&model=parley-offline-upscaler')).toBe(`/conversation/new?mode=image&model=${OFFLINE_UPSCALER_MODEL_ID}`);
  });

  it('/balance is the Wallet; /media and the home route open a new conversation keeping the query', () => {
    expect(matchRoute('/balance')).toEqual({ name: 'wallet', section: null });
    expect(matchRoute('/wallet')).toEqual({ name: 'wallet', section: null });
    expect(matchRoute('/wallet/history')).toEqual({ name: 'wallet', section: 'history' });
    expect(matchRoute('/settings/voice')).toEqual({ name: 'settings', section: 'voice' });
    expect(matchRoute('/media?mode=image&model=flux-schnell')).toEqual({ name: 'home' });
    expect(homeTarget('/media?mode=image&model=flux-schnell')).toBe('/conversation/new?mode=image&model=flux-schnell');
    expect(homeTarget('/')).toBe('/conversation/new');
  });

  it('parse the front matter and refuse an entry without a title or a real date', () => {
    expect(parseEntry('./entries/2026-01-02-x.md', '---\ntitle: Hello: world\ndate: 2026-01-02\n---\nBody *text*\n')).toEqual({
      id: '2026-01-02-x', title: 'Hello: world', date: '2026-01-02', text: 'Body *text*',
    });
    expect(() => parseEntry('a.md', 'no front matter')).toThrow('no front matter');
    expect(() => parseEntry('a.md', '---\ndate: 2026-01-02\n---\nx')).toThrow('no title');
    expect(() => parseEntry('a.md', '---\ntitle: T\ndate: 2 Jan\n---\nx')).toThrow('YYYY-MM-DD');
    const sorted = sortEntries([
      { id: 'a', title: '', date: '2026-01-01', text: '' },
      { id: 'c', title: '', date: '2026-01-02', text: '' },
      { id: 'b', title: '', date: '2026-01-02', text: '' },
    ]);
    expect(sorted.map((e) => e.id)).toEqual(['c', 'b', 'a']);
  });

  it('updates.read folds to a set of ids; the payload needs ids', () => {
    const e = (ids: string[], n: number) => makeEvent('updates.read', { ids, at: n }, `r${n}`, n);
    expect([...foldUpdatesRead(new Set(), [e(['a'], 1), e(['b', 'a'], 2)])].sort()).toEqual(['a', 'b']);
    expect(checkPayload('updates.read', { ids: [], at: 1 })).toMatch(/^payload\.ids is not a non-empty list of ids/);
    expect(checkPayload('updates.read', { ids: ['x'], at: 1 })).toBeNull();
  });
});

const newEngine = useOfflineEngines();
const updates = (engine: Engine, test: (v: UpdatesView) => boolean) => firstValueFrom(engine.observe({ kind: 'updates' }).pipe(filter(test)));

describe('updates read status', () => {
  it('starts all unread; one read, then all; survives a restart; replays', async () => {
    const engine = newEngine('updates-read');
    await engine.whenStarted();
    const total = UPDATE_ENTRIES.length;
    expect((await updates(engine, () => true)).unread).toBe(total);
    const first = UPDATE_ENTRIES[0]!.id;
    expect(await engine.markUpdatesRead([first])).toEqual({ ok: true });
    const one = await updates(engine, (v) => v.unread === total - 1);
    expect(one.items.find((i) => i.id === first)?.read).toBe(true);
    expect(one.items.filter((i) => i.read)).toHaveLength(1);
    // Reading it again logs nothing; an unknown id is refused.
    expect(await engine.markUpdatesRead([first])).toEqual({ ok: true });
    expect(await engine.markUpdatesRead(['no-such-update'])).toEqual({ ok: false, error: UPDATES_ERROR.unknown });
    expect(await engine.markAllUpdatesRead()).toEqual({ ok: true });
    expect((await updates(engine, (v) => v.unread === 0)).items.every((i) => i.read)).toBe(true);
    const events = decodeLog(await engine.exportLog()).events.filter((e) => e.type === 'updates.read');
    expect(events.map((e) => (e.payload as { ids: string[] }).ids.length)).toEqual([1, total - 1]);
    expect(foldUpdatesRead(new Set(), events.map((e) => upcast(e, { validate: true }))).size).toBe(total);
    await engine.dispose();

    const again = newEngine('updates-read');
    expect((await updates(again, (v) => v.unread === 0)).unread).toBe(0);
  });

  it('an imported log brings its read status', async () => {
    const engine = newEngine('updates-import');
    await engine.whenStarted();
    const id = UPDATE_ENTRIES[1]!.id;
    await engine.importLog(encodeLog([makeEvent('updates.read', { ids: [id], at: 5 }, 'imp-1', 5)], { exportedAt: 5 }));
    const view = await updates(engine, (v) => v.unread === UPDATE_ENTRIES.length - 1);
    expect(view.items.find((i) => i.id === id)?.read).toBe(true);
  });
});
