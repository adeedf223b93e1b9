import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installLifecycle, RELOAD_DELAY_MS, REOPEN_DELAY_MS } from '../../../src/worker/db/lifecycle';
import type { DbMarker } from '../../../src/worker/db/lifecycle';
import { ParleyDB, SCHEMA_V40 } from '../../../src/worker/db/schema';

afterEach(() => {
  vi.useRealTimers();
});

function hooks() {
  const markers: DbMarker[] = [];
  const reloads: DbMarker[] = [];
  const warnings: string[] = [];
  return {
    markers,
    reloads,
    warnings,
    hooks: {
      storeMarker: (m: DbMarker) => void markers.push(m),
      onReloadRequested: (m: DbMarker) => void reloads.push(m),
      warn: (w: string) => void warnings.push(w),
      now: () => 1234,
    },
  };
}

describe('database lifecycle', () => {
  it('exposes the spec delays', () => {
    expect(RELOAD_DELAY_MS).toBe(300);
    expect(REOPEN_DELAY_MS).toBe(100);
  });

  it('versionchange: closes the database, stores a marker, requests a reload after 300 ms', async () => {
    const factory = new IDBFactory();
    const db = new ParleyDB('vc', { indexedDB: factory, IDBKeyRange });
    await db.open();
    const h = hooks();
    installLifecycle(db, h.hooks);
    // Only setTimeout is faked: fake-indexeddb schedules with setImmediate.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

    // Another tab opens a newer schema.
    const newer = new Dexie('vc', { indexedDB: factory, IDBKeyRange });
    newer.version(43).stores({ ...SCHEMA_V40, extra: '++id' });
    await newer.open();
    expect(newer.verno).toBe(43);

    expect(db.isOpen()).toBe(false);
    expect(h.markers).toEqual([{ kind: 'versionchange', dbName: 'vc', oldVersion: 42, newVersion: 43, at: 1234 }]);
    expect(h.reloads).toEqual([]);
    vi.advanceTimersByTime(RELOAD_DELAY_MS - 1);
    expect(h.reloads).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.reloads).toEqual(h.markers);
    newer.close();
  });

  it('blocked: stores a marker and logs a warning while another tab holds the old version', async () => {
    const factory = new IDBFactory();
    const old = new Dexie('blk', { indexedDB: factory, IDBKeyRange });
    old.version(40).stores(SCHEMA_V40);
    old.on('versionchange', () => false); // a stale tab that does not let go
    await old.open();

    const db = new ParleyDB('blk', { indexedDB: factory, IDBKeyRange });
    const h = hooks();
    installLifecycle(db, h.hooks);
    const opening = db.open();
    await vi.waitFor(() => expect(h.markers).toHaveLength(1));
    expect(h.markers[0]).toEqual({ kind: 'blocked', dbName: 'blk', oldVersion: 40, newVersion: 42, at: 1234 });
    expect(h.warnings[0]).toMatch(/Upgrade of database 'blk' to version 42 is blocked by another tab holding version 40/);
    old.close();
    await opening;
    expect(db.verno).toBe(42);
    db.close();
  });

  it('blocked: warns through console.warn by default', async () => {
    const factory = new IDBFactory();
    const old = new Dexie('blk2', { indexedDB: factory, IDBKeyRange });
    old.version(40).stores(SCHEMA_V40);
    old.on('versionchange', () => false);
    await old.open();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const db = new ParleyDB('blk2', { indexedDB: factory, IDBKeyRange });
    const markers: DbMarker[] = [];
    installLifecycle(db, { storeMarker: (m) => void markers.push(m), onReloadRequested: () => {} });
    const opening = db.open();
    await vi.waitFor(() => expect(markers).toHaveLength(1));
    expect(warn.mock.calls.some(([m]) => /is blocked by another tab/.test(String(m)))).toBe(true);
    old.close();
    await opening;
    warn.mockRestore();
    db.close();
  });

  it('found closed: reopens after 100 ms and retries the operation once', async () => {
    const db = new ParleyDB('closed', { indexedDB: new IDBFactory(), IDBKeyRange });
    await db.open();
    await db.instructions.add({ id: 1, name: 'n', instructions: 'i', createdAt: 1, updatedAt: 1 });
    const life = installLifecycle(db, hooks().hooks);
    db.close();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const op = vi.fn(() => db.instructions.count());
    const result = life.withReopen(op);
    await vi.waitFor(() => expect(op).toHaveBeenCalledTimes(1));
    await Promise.resolve();
    expect(db.isOpen()).toBe(false);
    await vi.advanceTimersByTimeAsync(REOPEN_DELAY_MS);
    expect(await result).toBe(1);
    expect(op).toHaveBeenCalledTimes(2);
    expect(db.isOpen()).toBe(true);
    db.close();
  });

  it('does not retry other errors, nor reopen while a reload is pending', async () => {
    const db = new ParleyDB('noretry', { indexedDB: new IDBFactory(), IDBKeyRange });
    const life = installLifecycle(db, hooks().hooks);
    const failing = vi.fn(async () => {
      throw new Error('other');
    });
    await expect(life.withReopen(failing)).rejects.toThrow('other');
    expect(failing).toHaveBeenCalledTimes(1);
    await db.open();
    db.on('versionchange').fire({ oldVersion: 420, newVersion: 430 });
    expect(life.reloadPending).toBe(true);
    const op = vi.fn(() => db.instructions.count());
    await expect(life.withReopen(op)).rejects.toMatchObject({ name: 'DatabaseClosedError' });
    expect(op).toHaveBeenCalledTimes(1);
    life.dispose();
  });
});
