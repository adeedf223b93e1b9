/**
 * Share links (spec 001 section 2, issue 20): one conversation as a read-only copy made from its events
 * (src/inspect/repro.ts `shareLog`: the events that change it, none of the sharer's global ones), optionally with
 * its words redacted, either saved as a file or published through the gateway (POST /api/share). The gateway
 * gives an owner token for the link; the engine keeps it in its meta store (not in the event log, so no export or
 * share ever carries it) and sends it to delete the link. Reads the log; appends nothing.
 */
import type { ShareFile, ShareHandlers, ShareLink } from '../../../protocol/engine';
import { encodeLog } from '../../../events/codec';
import { redactEvent, shareLog } from '../../../inspect/repro';
import type { EngineCore } from '../../core';
import { readLog } from '../../log';
import { gateway, GatewayError } from '../../infra/gateway';

/** What the engine keeps per published conversation. */
interface KeptShare extends ShareLink {
  ownerToken: string;
}

const metaKey = (slug: string) => `share:${slug}`;
export const NOTHING_TO_SHARE = 'There is nothing to share in this conversation yet.';

function errorText(e: unknown): string {
  if (e instanceof GatewayError) return e.message;
  if (e instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return e instanceof Error ? e.message : String(e);
}

export function shareCommands(core: EngineCore, options: { now?: () => number } = {}): ShareHandlers {
  const now = options.now ?? Date.now;

  async function build(slug: string, redact: boolean): Promise<{ text: string; events: number } | null> {
    await core.whenStarted();
    let events = shareLog(await readLog(core.db), slug);
    if (events.length === 0) return null;
    if (redact) events = events.map(redactEvent);
    return { text: encodeLog(events, { exportedAt: now() }), events: events.length };
  }

  async function kept(slug: string): Promise<KeptShare | null> {
    await core.whenStarted();
    const row = await core.db.meta.get(metaKey(slug));
    return row ? (row.value as KeptShare) : null;
  }

  const publicLink = ({ id, url, redacted, publishedAt }: KeptShare): ShareLink => ({ id, url, redacted, publishedAt });

  return {
    async shareFile(slug, { redact }): Promise<ShareFile> {
      const made = await build(slug, redact);
      if (!made) return { ok: false, error: NOTHING_TO_SHARE };
      const safe = slug.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 60) || 'conversation';
      return { ok: true, fileName: `parley-share-${safe}.ndjson`, text: made.text, events: made.events };
    },

    async publishShare(slug, { redact }) {
      const made = await build(slug, redact);
      if (!made) return { ok: false, error: NOTHING_TO_SHARE };
      let created;
      try {
        created = await gateway.publishShare(made.text);
      } catch (e) {
        return { ok: false, error: errorText(e) };
      }
      const before = await kept(slug);
      const share: KeptShare = { id: created.id, url: created.url, ownerToken: created.ownerToken, redacted: redact, publishedAt: now() };
      await core.db.meta.put({ key: metaKey(slug), value: share });
      // The link published before is replaced: it goes (best effort; the user sees only the new one).
      if (before) await gateway.deleteShare(before.id, before.ownerToken).catch(() => {});
      return { ok: true, link: publicLink(share) };
    },

    async deleteShare(slug) {
      const share = await kept(slug);
      if (!share) return { ok: true };
      try {
        await gateway.deleteShare(share.id, share.ownerToken);
      } catch (e) {
        return { ok: false, error: errorText(e) };
      }
      await core.db.meta.delete(metaKey(slug));
      return { ok: true };
    },

    async shareLink(slug) {
      const share = await kept(slug);
      return share ? publicLink(share) : null;
    },
  };
}
