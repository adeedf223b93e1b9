/**
 * Operator command: `npm run admin -- <command> ...` (docs/gateway.md, "Admin command").
 *
 *   credit SESSION AMOUNT_USD [--key KEY]       add USD to a session's balance
 *   credit-nano SESSION AMOUNT_XNO [--key KEY]  add nano (XNO) to a session's balance
 *   show SESSION                                print a session's balances
 *
 * SESSION is the session id (ses_...) or its sessionUUID. Uses the gateway's database configuration
 * (DATABASE_URL, else PGlite in PARLEY_DATA_DIR), prints which database that is, and never creates one (a folder
 * with no database is an error). While a gateway owns the PGlite folder, the command goes through that
 * gateway's loopback admin routes instead (PGlite allows one process per folder).
 */
import { pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AdminConflictError, AdminError, creditSession, showSession, type CreditCommand, type CreditOutcome, type SessionSummary } from './ops';
import { loadConfig, type GatewayConfig } from '../config';
import { ConfigError, type Env } from '../env-vars';
import { openDatabase, pgliteDir, type DbTarget } from '../db/open';
import type { Db } from '../db/types';
import { Ledger } from '../money/ledger';
import { readLiveLock, type GatewayLockFile } from '../start';

export const USAGE = `Usage: npm run admin -- <command>
  credit SESSION AMOUNT_USD [--key KEY]       add USD (up to 6 decimals) to a session
  credit-nano SESSION AMOUNT_XNO [--key KEY]  add nano (XNO) to a session
  show SESSION                                print a session's balances
SESSION is the session id (ses_...) or the sessionUUID shown by GET /auth/local-session.
Database: DATABASE_URL if set, else embedded PGlite in PARLEY_DATA_DIR (default ./data).`;

export interface AdminIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Env;
  /** Use this database instead of opening one from env (tests). */
  db?: Db;
}

type Parsed =
  | { kind: 'help' }
  | { kind: 'credit'; cmd: CreditCommand }
  | { kind: 'show'; session: string };

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): Parsed {
  const args = [...argv];
  let key: string | undefined;
  const k = args.indexOf('--key');
  if (k !== -1) {
    key = args[k + 1];
    if (key === undefined || key.startsWith('--') || key.length === 0 || key.length > 200) throw new UsageError('--key needs a value (1 to 200 characters)');
    args.splice(k, 2);
  }
  const unknownFlag = args.find((a) => a.startsWith('--') && a !== '--help');
  if (unknownFlag) throw new UsageError(`Unknown option ${unknownFlag}`);
  const [command, ...rest] = args;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') return { kind: 'help' };
  if (command === 'credit' || command === 'credit-nano') {
    if (rest.length !== 2) throw new UsageError(`${command} takes SESSION and AMOUNT, got ${rest.length} argument(s)`);
    const [session, amount] = rest as [string, string];
    const cmd: CreditCommand = { session, amount, currency: command === 'credit' ? 'USD' : 'XNO' };
    if (key !== undefined) cmd.key = key;
    return { kind: 'credit', cmd };
  }
  if (command === 'show') {
    if (rest.length !== 1) throw new UsageError('show takes SESSION');
    return { kind: 'show', session: rest[0] as string };
  }
  throw new UsageError(`Unknown command '${command}'`);
}

async function viaGateway<T>(lock: GatewayLockFile, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${lock.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${lock.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const msg = json && typeof json === 'object' && 'message' in json && typeof json.message === 'string' ? json.message : `HTTP ${res.status}`;
    throw res.status === 409 ? new AdminConflictError(msg) : new AdminError(msg);
  }
  return json as T;
}

/** Which database the command works on, for the operator to check: the PGlite folder, or the server without password. */
export function describeDatabase(config: Pick<GatewayConfig, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `PGlite in ${pgliteDir(config.dataDir)}`;
  try {
    const u = new URL(config.databaseUrl);
    return `PostgreSQL ${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname} (DATABASE_URL)`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

function printCredit(io: AdminIo, r: CreditOutcome): void {
  io.out(
    r.duplicate
      ? `Key already applied earlier (${r.credited} ${r.currency}); nothing changed.`
      : `Credited ${r.credited} ${r.currency} to ${r.sessionId}.`,
  );
  io.out(`New balance: ${r.usd_balance} USD, ${r.nano_balance} XNO`);
}

function printShow(io: AdminIo, s: SessionSummary): void {
  io.out(`Session ${s.sessionId} (${s.sessionUUID})`);
  io.out(`Balance: ${s.usd_balance} USD, ${s.nano_balance} XNO; replies: ${s.numReplies}`);
  for (const h of s.holds ?? []) io.out(`Hold: ${h}`);
}

/** Runs the command; returns the exit code (0 ok, 1 failure, 2 usage error). */
export async function runAdmin(argv: readonly string[], io: AdminIo): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    io.err(`Error: ${e instanceof Error ? e.message : String(e)}`);
    io.err(USAGE);
    return 2;
  }
  if (parsed.kind === 'help') {
    io.out(USAGE);
    return 0;
  }
  let db: Db | null = null;
  const ownDb = io.db === undefined;
  try {
    const config = loadConfig(io.env);
    const ledger = (d: Db) => new Ledger(d, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
    if (io.db) db = io.db;
    else {
      const lock = config.databaseUrl ? null : readLiveLock(config.dataDir);
      if (lock) {
        io.out(`Database: ${describeDatabase(config)}, through the gateway at ${lock.url} (pid ${lock.pid})`);
        if (parsed.kind === 'credit') printCredit(io, await viaGateway<CreditOutcome>(lock, 'POST', '/admin/credit', parsed.cmd));
        else printShow(io, await viaGateway<SessionSummary>(lock, 'GET', `/admin/session/${encodeURIComponent(parsed.session)}`));
        return 0;
      }
      const target: DbTarget = config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: config.dataDir };
      // Never create a database here: an operator in the wrong folder would credit an empty one and see "No session".
      if (target.kind === 'pglite' && !existsSync(join(pgliteDir(target.dataDir), 'PG_VERSION'))) {
        throw new AdminError(
          `No database in ${pgliteDir(target.dataDir)} (PARLEY_DATA_DIR=${config.dataDir}); nothing was opened or created. ` +
            "Set PARLEY_DATA_DIR to the gateway's data folder, or DATABASE_URL for PostgreSQL.",
        );
      }
      io.out(`Database: ${describeDatabase(config)}`);
      db = await openDatabase(target);
    }
    if (parsed.kind === 'credit') printCredit(io, await creditSession(db, ledger(db), parsed.cmd));
    else printShow(io, await showSession(db, parsed.session));
    return 0;
  } catch (e) {
    if (e instanceof AdminError || e instanceof ConfigError) io.err(`Error: ${e.message}`);
    else io.err(`Failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    if (db && ownDb) await db.close().catch(() => {});
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const code = await runAdmin(process.argv.slice(2), {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    env: process.env,
  });
  process.exit(code);
}
