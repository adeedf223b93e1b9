import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../../src/server/admin';
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
