/**
 * Invitation routes (spec 001 section 7): create, update, redeem, delete, and the creator's list for the
 * Invitations page. Errors carry the section 8 codes in `error` (InvalidAmount, InsufficientBalance, ...), which
 * the view maps to its orange notices. Redeem attempts are rate-limited per client address (guessing codes).
 */
import type { Context, Hono } from 'hono';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import type { Limiter } from '../guards/rate-limit';
import { InvitationCreateSchema, InvitationRedeemSchema, InvitationUpdateSchema } from '../../protocol/payments';
import { InvitationError, type Invitations } from './service';

async function guarded<T>(c: Context<AppEnv>, run: () => Promise<T>): Promise<Response> {
  try {
    return c.json(await run());
  } catch (e) {
    if (e instanceof InvitationError) return jsonError(c, e.status, e.code, e.message);
    throw e;
  }
}

export function registerInvitationRoutes(app: Hono<AppEnv>, invitations: Invitations, guessLimit: Limiter): void {
  app.get('/api/invitations', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ invitations: await invitations.list(c.get('sessionId')) });
  });

  app.post('/invitations/create', async (c) => {
    const b = await readJson(c, 16 * 1024);
    if (!b.ok) return b.response;
    const parsed = InvitationCreateSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'InvalidAmount', describeIssues(parsed.error.issues));
    return guarded(c, async () => ({ invitation: await invitations.create(c.get('sessionId'), parsed.data) }));
  });

  app.post('/invitations/update', async (c) => {
    const b = await readJson(c, 16 * 1024);
    if (!b.ok) return b.response;
    const parsed = InvitationUpdateSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'InvalidAmount', describeIssues(parsed.error.issues));
    const input: Parameters<Invitations['update']>[1] = { redeemCode: parsed.data.redeemCode.trim().toUpperCase() };
    if (parsed.data.amount !== undefined) input.amount = parsed.data.amount;
    if (parsed.data.recipientName !== undefined) input.recipientName = parsed.data.recipientName;
    if (parsed.data.expiresAt !== undefined) input.expiresAt = parsed.data.expiresAt;
    return guarded(c, async () => ({ invitation: await invitations.update(c.get('sessionId'), input) }));
  });

  app.post('/invitations/redeem', async (c) => {
    const b = await readJson(c, 16 * 1024);
    if (!b.ok) return b.response;
    const parsed = InvitationRedeemSchema.safeParse(b.value);
    if (!parsed.success) return jsonError(c, 400, 'MissingRedeemCode', describeIssues(parsed.error.issues));
    const refused = await guessLimit.check(c);
    if (refused) return refused;
    return guarded(c, async () => ({ success: true, ...(await invitations.redeem(c.get('sessionId'), parsed.data.redeemCode)) }));
  });

  app.delete('/invitations/delete/:code', async (c) => {
    const code = c.req.param('code').trim().toUpperCase().slice(0, 64);
    return guarded(c, async () => {
      await invitations.remove(c.get('sessionId'), code);
      return { success: true };
    });
  });
}
