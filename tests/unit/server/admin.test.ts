import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDatabase, runAdmin } from '../../../src/server/admin/cli';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import type { AppEnv } from '../../../src/server/http';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { createSession } from '../../../src/server/sessions/store';

let db: Db;
beforeAll(async () => {
  db = await openDatabase({ kind: 'memory' });
});
afterAll(async () => {
  await db.close();
});

async function admin(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, db });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('npm run admin', () => {
  it('credit SESSION_ID AMOUNT_USD prints the new balance', async () => {
    const { session } = await createSession(db);
    const r = await admin('credit', session.id, '5');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe(`Credited 5.000000 USD to ${session.id}.\nNew balance: 5.000000 USD, 0.000000 XNO`);
    const r2 = await admin('credit', session.sessionUUID, '0.000001');
    expect(r2.out).toContain('New balance: 5.000001 USD');
  });

  it('credit-nano, show, and --key makes a credit idempotent', async () => {
    const { session } = await createSession(db);
    expect((await admin('credit-nano', session.id, '1.5')).out).toContain('New balance: 0.000000 USD, 1.500000 XNO');
    expect((await admin('credit', session.id, '2', '--key', 'deposit-42')).code).toBe(0);
    const again = await admin('credit', session.id, '2', '--key', 'deposit-42');
    expect(again.code).toBe(0);
    expect(again.out).toContain('nothing changed');
    expect(again.out).toContain('New balance: 2.000000 USD, 1.500000 XNO');
    const show = await admin('show', session.id);
    expect(show.out).toContain('Balance: 2.000000 USD, 1.500000 XNO; replies: 0');
  });

  it('validates input with clear errors and exit codes', async () => {
    const { session } = await createSession(db);
    expect((await admin()).code).toBe(0); // help
    expect((await admin('help')).out).toContain('Usage: npm run admin');
    const cases: [string[], number, RegExp][] = [
      [['frobnicate'], 2, /Unknown command 'frobnicate'/],
      [['credit'], 2, /takes SESSION and AMOUNT/],
      [['credit', session.id], 2, /takes SESSION and AMOUNT/],
      [['credit', session.id, '1', 'extra'], 2, /takes SESSION and AMOUNT/],
      [['credit', session.id, '1', '--key'], 2, /--key needs a value/],
      [['credit', session.id, '1', '--force'], 2, /Unknown option --force/],
      [['credit', session.id, 'ten'], 1, /Invalid USD amount 'ten'/],
      [['credit', session.id, '-5'], 1, /Invalid USD amount '-5'/],
      [['credit', session.id, '0'], 1, /must be above 0/],
      [['credit', session.id, '1.0000001'], 1, /at most 6 decimal places/],
      [['credit', session.id, '2000000'], 1, /At most 1000000 USD/],
      [['credit', 'ses_doesnotexist', '1'], 1, /No session 'ses_doesnotexist'/],
      [['show', 'ses_nope'], 1, /No session/],
    ];
    for (const [argv, code, msg] of cases) {
      const r = await admin(...argv);
      expect(r.code, argv.join(' ')).toBe(code);
      expect(r.err, argv.join(' ')).toMatch(msg);
    }
    expect((await admin('show', session.id)).out).toContain('0.000000 USD');
  });
});

describe('admin: key clashes, the database it opens, where the routes answer', () => {
  it('a key reused for another session, amount or currency is a clear error, nothing changed', async () => {
    const { session: a } = await createSession(db);
    const { session: b } = await createSession(db);
    expect((await admin('credit', a.id, '1', '--key', 'clash-1')).code).toBe(0);
    for (const argv of [
      ['credit', b.id, '1', '--key', 'clash-1'],
      ['credit', a.id, '2', '--key', 'clash-1'],
      ['credit-nano', a.id, '1', '--key', 'clash-1'],
    ]) {
      const r = await admin(...argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err).toBe(
        "Error: The key 'clash-1' was already used for a different operation; nothing changed (use a new --key, or the same amount, currency and session to repeat it safely)",
      );
    }
    expect((await admin('show', a.id)).out).toContain('Balance: 1.000000 USD, 0.000000 XNO');
    expect((await admin('show', b.id)).out).toContain('Balance: 0.000000 USD, 0.000000 XNO');
  });

  it('POST /admin/credit answers 409 on a clash; the routes refuse non-loopback and proxied connections', async () => {
    const { session: a } = await createSession(db);
    const { session: b } = await createSession(db);
    const catalogue = await Catalogue.create([], { offlineTokenDelayMs: 0, discoveryTimeoutMs: 1000, log: () => {} });
    const app = createApp({ db, catalogue, adminToken: 'tok', log: () => {} });
    const socket = (remoteAddress: string): AppEnv['Bindings'] => ({ incoming: { socket: { remoteAddress } } as unknown as IncomingMessage });
    const credit = (session: string, headers: Record<string, string> = {}, from = '127.0.0.1') =>
      app.request(
        '/admin/credit',
        { method: 'POST', headers: { authorization: 'Bearer tok', 'content-type': 'application/json', ...headers }, body: JSON.stringify({ session, amount: '1', currency: 'USD', key: 'route-clash' }) },
        socket(from),
      );
    expect((await credit(a.id)).status).toBe(200);
    expect((await credit(a.id)).status).toBe(200); // a true repeat
    const clash = await credit(b.id);
    expect(clash.status).toBe(409);
    expect(await clash.json()).toEqual({
      error: 'KEY_CONFLICT',
      message: "The key 'route-clash' was already used for a different operation; nothing changed (use a new --key, or the same amount, currency and session to repeat it safely)",
    });
    for (const [headers, from] of [
      [{}, '10.1.2.3'],
      [{}, '::ffff:192.168.1.9'],
      [{ 'x-forwarded-for': '203.0.113.1' }, '127.0.0.1'],
      [{ forwarded: 'for=203.0.113.1' }, '::1'],
    ] as const) {
      const res = await credit(a.id, headers, from);
      expect(res.status, `${from} ${JSON.stringify(headers)}`).toBe(403);
      expect(((await res.json()) as { error: string }).error).toBe('ADMIN_LOOPBACK_ONLY');
    }
    expect((await credit(a.id, {}, '::1')).status).toBe(200);
    const loose = createApp({ db, catalogue, adminToken: 'tok', settings: { guards: loadConfig({ PARLEY_ADMIN_LOOPBACK_ONLY: 'false' }).guards }, log: () => {} });
    const far = await loose.request('/admin/session/' + a.id, { headers: { authorization: 'Bearer tok' } }, socket('10.1.2.3'));
    expect(far.status).toBe(200);
  });

  it('says which database it opened, and never creates one in a folder without a database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-admin-'));
    try {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin(['credit', 'ses_x', '1'], { out: (l) => out.push(l), err: (l) => err.push(l), env: { PARLEY_DATA_DIR: dir } });
      expect(code).toBe(1);
      expect(err.join('\n')).toContain(`No database in ${join(dir, 'pglite')} (PARLEY_DATA_DIR=${dir}); nothing was opened or created.`);
      expect(existsSync(join(dir, 'pglite'))).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(describeDatabase({ databaseUrl: null, dataDir: '/srv/parley' })).toBe('PGlite in /srv/parley/pglite');
    expect(describeDatabase({ databaseUrl: 'postgres://parley:secret@db.internal:5432/parley', dataDir: './data' })).toBe(
      'PostgreSQL parley@db.internal:5432/parley (DATABASE_URL)',
    );
  });

  it('on an existing PGlite folder, prints it first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-admin-'));
    try {
      const made = await openDatabase({ kind: 'pglite', dataDir: dir });
      const { session } = await createSession(made);
      await made.close();
      const out: string[] = [];
      const code = await runAdmin(['show', session.id], { out: (l) => out.push(l), err: () => {}, env: { PARLEY_DATA_DIR: dir } });
      expect(code).toBe(0);
      expect(out[0]).toBe(`Database: PGlite in ${join(dir, 'pglite')}`);
      expect(out[1]).toBe(`Session ${session.id} (${session.sessionUUID})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
