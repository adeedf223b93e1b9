/**
 * Numbered SQL migrations, shared by PGlite and Postgres. Ids start at 1 and go up by exactly 1; an applied
 * migration is never edited, a change is a new migration. Applied versions are tracked in `schema_migrations`.
 * The whole run holds a transaction-scoped advisory lock so that two gateways starting at once on one Postgres
 * do not race.
 */
import type { Db } from './types';

export interface Migration {
  id: number;
  name: string;
  /** Statements run in order, one query each (no multi-statement strings, for the adapters' sake). */
  statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'sessions_and_ledger',
    statements: [
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        session_uuid UUID NOT NULL UNIQUE,
        token_hash TEXT NOT NULL UNIQUE,
        usd_micro BIGINT NOT NULL DEFAULT 0 CHECK (usd_micro >= 0),
        nano_raw NUMERIC(40,0) NOT NULL DEFAULT 0 CHECK (nano_raw >= 0),
        usd_earned_micro BIGINT NOT NULL DEFAULT 0 CHECK (usd_earned_micro >= 0),
        earned_raw NUMERIC(40,0) NOT NULL DEFAULT 0 CHECK (earned_raw >= 0),
        num_replies INTEGER NOT NULL DEFAULT 0,
        metadata JSONB NOT NULL DEFAULT '{}'::jsonb,
        active_policies JSONB NOT NULL DEFAULT '[]'::jsonb,
        nano_deposit_address TEXT,
        nano_return_address TEXT,
        referrer TEXT,
        recharge_enabled BOOLEAN NOT NULL DEFAULT false,
        recharge_threshold_micro BIGINT NOT NULL DEFAULT 0,
        recharge_amount_micro BIGINT NOT NULL DEFAULT 0,
        display_currency TEXT NOT NULL DEFAULT 'USD' CHECK (display_currency IN ('USD', 'XNO')),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE ledger_entries (
        id BIGSERIAL PRIMARY KEY,
        idempotency_key TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        kind TEXT NOT NULL CHECK (kind IN ('charge', 'credit')),
        requested_usd_micro BIGINT NOT NULL DEFAULT 0 CHECK (requested_usd_micro >= 0),
        requested_nano_raw NUMERIC(40,0) NOT NULL DEFAULT 0 CHECK (requested_nano_raw >= 0),
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'partial', 'insufficient')),
        source TEXT CHECK (source IN ('USD', 'nano', 'mixed', 'none')),
        applied_usd_micro BIGINT NOT NULL DEFAULT 0,
        applied_nano_raw NUMERIC(40,0) NOT NULL DEFAULT 0,
        usd_after_micro BIGINT,
        nano_after_raw NUMERIC(40,0),
        counts_reply BOOLEAN NOT NULL DEFAULT false,
        note TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX ledger_entries_session_idx ON ledger_entries (session_id, id)`,
    ],
  },
  // 2-4: reserved while issue 5 is built; each is filled in by its own change before it ships.
  {
    id: 2,
    name: 'holds_and_request_binding',
    statements: [
      // A hold reserves a request's maximum cost before the upstream is called (docs/gateway.md, "Holds"): the
      // amount leaves the balance when the hold is made and the unused part comes back when it is settled.
      `CREATE TABLE ledger_holds (
        id BIGSERIAL PRIMARY KEY,
        hold_key TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        source TEXT NOT NULL CHECK (source IN ('USD', 'nano')),
        max_usd_micro BIGINT NOT NULL CHECK (max_usd_micro >= 0),
        held_usd_micro BIGINT NOT NULL DEFAULT 0 CHECK (held_usd_micro >= 0),
        held_nano_raw NUMERIC(40,0) NOT NULL DEFAULT 0 CHECK (held_nano_raw >= 0),
        nano_price_usd_micro BIGINT NOT NULL CHECK (nano_price_usd_micro > 0),
        status TEXT NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'settled', 'released', 'expired')),
        settled_usd_micro BIGINT,
        note TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        expires_at TIMESTAMPTZ NOT NULL,
        closed_at TIMESTAMPTZ
      )`,
      `CREATE INDEX ledger_holds_open_idx ON ledger_holds (expires_at) WHERE status = 'held'`,
      `CREATE INDEX ledger_holds_session_idx ON ledger_holds (session_id, id)`,
      // A requestId is bound to one request: the primary key makes two parallel uses start at most one upstream.
      `CREATE TABLE request_bindings (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        request_id TEXT NOT NULL,
        model TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, request_id)
      )`,
    ],
  },
  {
    id: 3,
    name: 'inflight_replies',
    statements: [
      // Replies in flight, shared by the gateway processes on one Postgres (src/server/chat/reply-store.ts): a row
      // per reply, its text in chunks written in batches (the metadata tag is the last chunk). Rows expire: a
      // finished reply after the retention time, a streaming one when its owner stops renewing it.
      `CREATE TABLE inflight_replies (
        reply_key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'streaming' CHECK (state IN ('streaming', 'finished')),
        cancel_requested BOOLEAN NOT NULL DEFAULT false,
        follower_until TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        expires_at TIMESTAMPTZ NOT NULL
      )`,
      `CREATE INDEX inflight_replies_expires_idx ON inflight_replies (expires_at)`,
      `CREATE INDEX inflight_replies_owner_idx ON inflight_replies (owner) WHERE state = 'streaming'`,
      `CREATE TABLE inflight_reply_chunks (
        reply_key TEXT NOT NULL REFERENCES inflight_replies(reply_key) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (reply_key, seq)
      )`,
    ],
  },
  {
    id: 4,
    name: 'rate_limits_and_session_expiry',
    statements: [
      // Token buckets shared by every gateway process on one database (src/server/guards/rate-limit.ts): one row
      // per (limit, client address), refilled from timestamps by the upsert that takes a token.
      `CREATE TABLE rate_limits (
        bucket_key TEXT PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        allowed BOOLEAN NOT NULL DEFAULT true,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX rate_limits_updated_idx ON rate_limits (updated_at)`,
      // The expiry sweep (src/server/sessions/expiry.ts) looks for idle moneyless sessions, oldest first.
      `CREATE INDEX sessions_last_seen_idx ON sessions (last_seen_at) WHERE usd_micro = 0 AND nano_raw = 0`,
    ],
  },
  {
    id: 5,
    name: 'payments_invitations_nano_recovery',
    statements: [
      // Deposits and auto-recharges (src/server/payments/): one row per transaction; the credit is the ledger entry
      // 'payment:{id}', made once whatever number of webhooks, polls and retries confirm it.
      `CREATE TABLE payment_transactions (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        provider TEXT NOT NULL,
        ticker TEXT NOT NULL,
        purpose TEXT NOT NULL DEFAULT 'deposit' CHECK (purpose IN ('deposit', 'recharge')),
        amount TEXT NOT NULL,
        usd_micro BIGINT NOT NULL CHECK (usd_micro > 0),
        provider_ref TEXT,
        payment_link TEXT,
        checkout_token TEXT NOT NULL,
        -- Daimo-style deposits (POST /transaction/create/daimo): paid at the provider, credited when the app redeems
        -- them with this nonce (POST /transaction/callback/daimo).
        payment_nonce TEXT,
        provider_paid BOOLEAN NOT NULL DEFAULT false,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed', 'expired')),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        expires_at TIMESTAMPTZ NOT NULL,
        settled_at TIMESTAMPTZ
      )`,
      `CREATE UNIQUE INDEX payment_transactions_ref_idx ON payment_transactions (provider, provider_ref) WHERE provider_ref IS NOT NULL`,
      `CREATE INDEX payment_transactions_pending_idx ON payment_transactions (expires_at) WHERE status = 'pending'`,
      `CREATE INDEX payment_transactions_session_idx ON payment_transactions (session_id, created_at)`,
      // Every provider event seen (webhook deliveries, status answers), once: the audit trail of a credit.
      `CREATE TABLE payment_events (
        provider TEXT NOT NULL,
        event_id TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        outcome TEXT NOT NULL,
        received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (provider, event_id)
      )`,
      // A card saved at checkout (Stripe customer and payment method), for auto-recharge.
      `CREATE TABLE payment_customers (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        provider TEXT NOT NULL,
        customer_ref TEXT NOT NULL,
        method_ref TEXT,
        PRIMARY KEY (session_id, provider)
      )`,
      // Auto-recharge: armed while the balance is at or above the threshold; a crossing disarms it (one top-up).
      `CREATE TABLE recharge_state (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        armed BOOLEAN NOT NULL DEFAULT true,
        last_tx_id TEXT,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX sessions_recharge_idx ON sessions (id) WHERE recharge_enabled`,
      // Invitations (src/server/invitations/): the amount is reserved from the creator when created.
      `CREATE TABLE invitations (
        redeem_code TEXT PRIMARY KEY,
        creator_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        currency TEXT NOT NULL CHECK (currency IN ('USD', 'XNO')),
        amount_usd_micro BIGINT NOT NULL DEFAULT 0 CHECK (amount_usd_micro >= 0),
        amount_nano_raw NUMERIC(40,0) NOT NULL DEFAULT 0 CHECK (amount_nano_raw >= 0),
        recipient_name TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'redeemed', 'expired', 'blocked', 'deleted')),
        version INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        expires_at TIMESTAMPTZ NOT NULL,
        redeemed_by TEXT,
        closed_at TIMESTAMPTZ
      )`,
      `CREATE INDEX invitations_creator_idx ON invitations (creator_session_id, created_at)`,
      `CREATE INDEX invitations_expiry_idx ON invitations (expires_at) WHERE status = 'active'`,
      // Nano deposit accounts: index n of the operator's seed belongs to one session.
      `CREATE SEQUENCE nano_account_index_seq START 1`,
      `CREATE TABLE nano_accounts (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        account_index BIGINT NOT NULL UNIQUE,
        address TEXT NOT NULL UNIQUE,
        representative TEXT
      )`,
      // More cookies for one session: a browser that entered the recovery code gets its own token.
      `CREATE TABLE session_tokens (
        token_hash TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `ALTER TABLE sessions ADD COLUMN recovery_code_hash TEXT UNIQUE`,
      `CREATE TABLE gateway_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    ],
  },
  {
    id: 6,
    name: 'video_jobs',
    statements: [
      // Video jobs (src/server/media/video-jobs.ts): one row per POST /api/generate-video, advanced by whichever
      // gateway claims it (FOR UPDATE SKIP LOCKED plus a lease), so jobs survive a restart and run once.
      `CREATE TABLE video_jobs (
        run_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        input JSONB NOT NULL,
        status TEXT NOT NULL,
        provider_job_id TEXT,
        hold_key TEXT,
        price_usd_micro BIGINT,
        cost_usd_micro BIGINT NOT NULL DEFAULT 0,
        payment_source TEXT,
        error TEXT,
        video BYTEA,
        video_type TEXT,
        failures INTEGER NOT NULL DEFAULT 0,
        next_check_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        lease_until TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX video_jobs_due_idx ON video_jobs (next_check_at) WHERE status IN ('queued', 'submitted')`,
      `CREATE INDEX video_jobs_session_idx ON video_jobs (session_id)`,
    ],
  },
  {
    id: 7,
    name: 'rate_limit_leases',
    statements: [
      // How many tokens the last take got: a gateway process leases tokens in blocks (guards/rate-limit.ts).
      `ALTER TABLE rate_limits ADD COLUMN granted INTEGER NOT NULL DEFAULT 0`,
    ],
  },
  {
    id: 8,
    name: 'analytics_consent',
    statements: [
      // Spec 001 section 3 (consentStatus, analyticsConsent, consentLastUpdated, policyVersion), one row per session.
      `CREATE TABLE consents (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        status TEXT NOT NULL CHECK (status IN ('not_required', 'pending', 'granted', 'denied')),
        analytics BOOLEAN NOT NULL DEFAULT false,
        source TEXT,
        policy_version TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    id: 9,
    name: 'attachments',
    statements: [
      // Spec 000 section 7, POST {api}/notion/unsupported-filetypes (src/server/documents/unsupported-filetypes.ts).
      `CREATE TABLE unsupported_filetype_reports (
        id BIGSERIAL PRIMARY KEY,
        session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        filetype TEXT NOT NULL,
        filesize_mb NUMERIC(12,3) NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX unsupported_filetype_reports_session_idx ON unsupported_filetype_reports (session_id, created_at)`,
      // Server document processing by job id (src/server/documents/process-document.ts): an engine that took over
      // from one that died mid-upload asks GET /api/process-document/status instead of sending the file again.
      `CREATE TABLE document_jobs (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        job_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'error')),
        content TEXT,
        error TEXT,
        error_code TEXT,
        processing_time DOUBLE PRECISION,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, job_id)
      )`,
      `CREATE INDEX document_jobs_created_idx ON document_jobs (created_at)`,
    ],
  },
  {
    id: 10,
    name: 'tts_jobs',
    statements: [
      // Text-to-speech jobs (src/server/speech/jobs.ts): one row per POST /api/tts, leased by the gateway that runs
      // it; a lease that runs out (its gateway died) is claimed by another with FOR UPDATE SKIP LOCKED. Audio is kept
      // only for jobs answered 202 (status 'completed'), until the row is purged an hour after it finished.
      `CREATE TABLE tts_jobs (
        run_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        request_id TEXT,
        model TEXT NOT NULL,
        input JSONB NOT NULL,
        chars INTEGER NOT NULL,
        cost_usd_micro BIGINT NOT NULL DEFAULT 0,
        hold_key TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'delivered', 'error')),
        error TEXT,
        audio BYTEA,
        audio_type TEXT,
        charged_usd_micro BIGINT,
        payment_source TEXT,
        owner TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        lease_until TIMESTAMPTZ NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE UNIQUE INDEX tts_jobs_request_idx ON tts_jobs (session_id, request_id) WHERE request_id IS NOT NULL`,
      `CREATE INDEX tts_jobs_lease_idx ON tts_jobs (lease_until) WHERE status = 'running'`,
      `CREATE INDEX tts_jobs_updated_idx ON tts_jobs (updated_at) WHERE status <> 'running'`,
    ],
  },
  {
    id: 11,
    name: 'image_results',
    statements: [
      // The answer of a finished image generation, by its requestId (src/server/media/image-results.ts): a retry of
      // the same request (an engine that took over a pending image reply) gets it back instead of a second image
      // and a second charge. Purged an hour after it was made.
      `CREATE TABLE image_results (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        request_id TEXT NOT NULL,
        answer TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, request_id)
      )`,
      `CREATE INDEX image_results_created_idx ON image_results (created_at)`,
    ],
  },
  {
    id: 12,
    name: 'free_quota_uses',
    statements: [
      // Free uses of a day counted beyond one session (src/server/media/billing.ts): per client address
      // ('addr:{address or IPv6 /64}') and for all sessions together ('total'), so free sessions cannot multiply a
      // free daily quota. One conditional upsert per take; rows of past days are swept (sessions/expiry.ts).
      `CREATE TABLE free_quota_uses (
        scope TEXT NOT NULL,
        day DATE NOT NULL,
        used INTEGER NOT NULL CHECK (used >= 0),
        PRIMARY KEY (scope, day)
      )`,
    ],
  },
  {
    id: 13,
    name: 'session_sign_out',
    statements: [
      // A browser signed out of its session (a new recovery code, "Sign out other browsers": sessions/store.ts)
      // keeps its token row, marked, so that it is told so rather than silently given a new session.
      `ALTER TABLE session_tokens ADD COLUMN revoked_at TIMESTAMPTZ`,
      `CREATE INDEX session_tokens_session_idx ON session_tokens (session_id)`,
    ],
  },
  {
    id: 14,
    name: 'nano_faucet',
    statements: [
      // One row per claim of the free nano (nano/faucet.ts): one per session, one per client address (a keyed
      // hash, never the address itself). No foreign key: a claim outlives its session, so the address stays used.
      `CREATE TABLE faucet_claims (
        session_id TEXT PRIMARY KEY,
        address_hash TEXT NOT NULL UNIQUE,
        nano_raw NUMERIC(40, 0) NOT NULL CHECK (nano_raw > 0),
        claimed_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    id: 15,
    name: 'shared_conversations',
    statements: [
      // Share links (src/server/share/): a conversation's repro log published by its owner. The id is random
      // (128 bits); only the hash of the owner token is kept. Deleted by the owner, or with the session.
      `CREATE TABLE shared_conversations (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        owner_token_hash TEXT NOT NULL,
        body TEXT NOT NULL,
        bytes INTEGER NOT NULL CHECK (bytes >= 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX shared_conversations_session_idx ON shared_conversations (session_id)`,
    ],
  },
];

const LOCK_ID = 727_001;

/** Applies every pending migration; returns the ids applied now. */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  migrations.forEach((m, i) => {
    if (m.id !== i + 1) throw new Error(`Migration ids must start at 1 and go up by 1; found ${m.id} at position ${i + 1}`);
  });
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => Number(r.version)));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const s of m.statements) await tx.query(s);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.id, m.name]);
      applied.push(m.id);
    }
    const unknown = [...done].filter((v) => !migrations.some((m) => m.id === v));
    if (unknown.length > 0) {
      throw new Error(`Database has migrations this gateway does not know (${unknown.join(', ')}); it is newer than this code.`);
    }
    return applied;
  });
}
