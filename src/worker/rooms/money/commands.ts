/**
 * The money room's commands (spec 001): deposits, nano wallet actions, invitations, auto-recharge, the display
 * currency and recovery codes. Each failure raises the spec's notice here (so every tab sees it) and answers its
 * title; the view only renders. State and pipelines live in rooms/money/money-room.ts.
 */
import type { ActionResult, MoneyHandlers } from '../../../protocol/engine';
import { ACCOUNT_TEXT, creationError, DEPOSIT_TEXT, DEPOSIT_TOPIC, INVITATION_TOPIC, invitationNotice, MONEY_DURATION, NANO_TEXT, validateDeposit } from '../../../protocol/money-text';
import { formatMoney, formatUsd, xnoDigits } from '../../../protocol/money-format';
import { FIAT_CURRENCIES, isTicker, NANO_ADDRESS_PATTERN, usdEquivalent } from '../../../protocol/payments';
import type { EngineCore } from '../../core';
import { FAUCET_TEXT, isFaucetRefusal } from '../../../protocol/faucet';
import { money, type Result } from './money-client';
import type { MoneyRoom } from './money-room';

/** The support address when the gateway cannot be asked: none (the notice then says "Please contact support."). */
const FALLBACK_SUPPORT = '';

export function moneyCommands(core: EngineCore, room: MoneyRoom): MoneyHandlers {
  let supportEmail: string | null = null;

  /** The server's support address, asked for once when first needed (issue 16 item 10: it was known only after the
   * Deposit dialog had opened once, so a notice said "Please contact support at support."). */
  const support = async (): Promise<string> => {
    if (supportEmail === null) {
      const r = await money.methods();
      if (!r.ok) return FALLBACK_SUPPORT;
      supportEmail = r.value.supportEmail;
    }
    return supportEmail;
  };

  const red = (title: string, text = '', topic?: string): { ok: false; error: string } => {
    core.notify({ title, text, tone: 'red', durationMs: MONEY_DURATION.long, ...(topic ? { topic } : {}) });
    return { ok: false, error: title };
  };

  /** Section 8: each invitation error is an orange notice for 5 s. */
  const invitationFailed = async (r: Extract<Result<unknown>, { ok: false }>): Promise<{ ok: false; error: string }> => {
    const n = invitationNotice(r.error, await support());
    core.notify({ title: n.title, text: n.text, tone: 'orange', durationMs: MONEY_DURATION.medium, topic: INVITATION_TOPIC });
    return { ok: false, error: n.title };
  };

  const done = (r: Result<unknown>, failTitle: string): ActionResult => (r.ok ? { ok: true } : red(failTitle, r.message));

  return {
    async paymentMethods() {
      const r = await money.methods();
      if (!r.ok) return null;
      supportEmail = r.value.supportEmail;
      return r.value;
    },

    async paymentLimits(ticker) {
      const r = await money.limits(ticker);
      return r.ok ? r.value : null;
    },

    fiatRates: () => room.fiatRates(),

    async nanoPrice() {
      const r = await money.nanoPrice();
      if (r.ok && Number.isFinite(r.value.latestPrice) && r.value.latestPrice > 0) return r.value.latestPrice;
      // Spec 001 section 8: the price fetch error is logged and the fallback price 1 is used.
      console.warn('Nano price unavailable; using 1', r.ok ? r.value : r.message);
      return 1;
    },

    async createPayment(ticker, amount, network) {
      if (!isTicker(ticker)) return red(DEPOSIT_TEXT.methodUnavailable, '', DEPOSIT_TOPIC);
      const limits = await money.limits(ticker);
      const invalid = validateDeposit(ticker, amount, limits.ok ? limits.value : null);
      if (invalid) return { ok: false, error: invalid };
      // Stablecoins on a named network go the Daimo way: paid at the provider, then redeemed by the engine.
      const r = network ? await money.createDaimo(ticker, amount.trim()) : await money.create(ticker, amount.trim());
      if (!r.ok) return red(creationError(r.status === 0 ? 500 : r.status, r.message, r.limit), '', DEPOSIT_TOPIC);
      await room.started(ticker, amount.trim(), r.value, { ...(network ? { network } : {}), usdEquivalent: usdEquivalent(amount, limits.ok ? limits.value : null) });
      return { ok: true, transaction: r.value };
    },

    nanoDepositAddress: () => room.watchNano(),

    async setNanoReceiving(to, returnAddress) {
      if (to === 'return') {
        const address = returnAddress?.trim() ?? '';
        if (!NANO_ADDRESS_PATTERN.test(address)) return { ok: false, error: NANO_TEXT.invalidReturnAddress };
        const r = await money.returnAddress(address);
        if (!r.ok) return { ok: false, error: r.error === 'INVALID_ADDRESS' ? NANO_TEXT.invalidReturnAddress : r.message };
        await core.refreshSession();
      }
      room.setNanoReceiving(to);
      return { ok: true };
    },

    async setSelectedCurrency(currency) {
      // A tab's message is untrusted input: only the store's currencies.
      if (!FIAT_CURRENCIES.includes(currency)) return { ok: false, error: `Amounts can be shown in ${FIAT_CURRENCIES.join(', ')}.` };
      room.setSelectedCurrency(currency);
      return { ok: true };
    },

    async convertNanoToUsd(amount) {
      const r = await money.convert(amount);
      if (!r.ok) return red(NANO_TEXT.convertFailed, r.message);
      await core.refreshSession();
      core.notify({ title: NANO_TEXT.converted(xnoDigits(r.value.amount)), text: `${formatUsd(r.value.usd)} added to your USD balance.`, tone: 'green', durationMs: MONEY_DURATION.medium });
      return { ok: true, amount: r.value.amount };
    },

    async checkReceivables() {
      const r = await money.receivables();
      if (!r.ok) return red('Unable to check receivables', r.message); // ours: the spec gives no wording
      await core.refreshSession();
      return { ok: true, receivable: r.value.receivable };
    },

    async getRepresentative() {
      const r = await money.representative();
      return r.ok ? { ok: true, representative: r.value.representative } : { ok: false, error: r.message };
    },

    async changeRepresentative(representative) {
      const r = await money.changeRepresentative(representative.trim());
      if (!r.ok) return red('Unable to change the representative', r.message); // ours
      core.notify({ title: 'Representative changed', text: r.value.representative, tone: 'green', durationMs: MONEY_DURATION.medium }); // ours
      return { ok: true, representative: r.value.representative };
    },

    async setRechargeSettings(settings) {
      const r = await money.recharge(settings);
      const out = done(r, ACCOUNT_TEXT.rechargeFailed);
      if (out.ok) await core.refreshSession();
      return out;
    },

    async setDisplayCurrency(currency) {
      const r = await money.displayCurrency(currency);
      if (r.ok) await core.refreshSession();
      return r.ok ? { ok: true } : { ok: false, error: r.message };
    },

    async listInvitations() {
      const r = await money.invitations();
      return r.ok ? { ok: true, invitations: r.value.invitations } : { ok: false, error: r.message };
    },

    async createInvitation(input) {
      const r = await money.createInvitation({ ...input });
      if (!r.ok) return invitationFailed(r);
      core.resolveNotices(INVITATION_TOPIC);
      await core.refreshSession();
      return { ok: true, invitation: r.value.invitation };
    },

    async updateInvitation(redeemCode, changes) {
      const r = await money.updateInvitation({ redeemCode, ...changes });
      if (!r.ok) return invitationFailed(r);
      core.resolveNotices(INVITATION_TOPIC);
      await core.refreshSession();
      return { ok: true, invitation: r.value.invitation };
    },

    async redeemInvitation(redeemCode) {
      if (redeemCode.trim() === '') return invitationFailed({ ok: false, status: 400, error: 'MissingRedeemCode', message: DEPOSIT_TEXT.missingRedeemCode });
      const r = await money.redeemInvitation(redeemCode.trim());
      if (!r.ok) return invitationFailed(r);
      await core.refreshSession();
      core.notify({ title: 'Invitation redeemed', text: `${formatMoney(r.value.amount, r.value.currency)} was added to your balance.`, tone: 'green', durationMs: MONEY_DURATION.medium, topic: INVITATION_TOPIC }); // ours
      return { ok: true, amount: r.value.amount, currency: r.value.currency };
    },

    async deleteInvitation(redeemCode) {
      const r = await money.deleteInvitation(redeemCode);
      if (!r.ok) return invitationFailed(r);
      core.resolveNotices(INVITATION_TOPIC);
      await core.refreshSession();
      return { ok: true };
    },

    async faucetStatus() {
      const r = await money.faucet();
      return r.ok ? r.value : null;
    },

    async claimFaucet() {
      const r = await money.claimFaucet();
      if (!r.ok) {
        const text = r.status === 429 ? FAUCET_TEXT.RATE_LIMITED : isFaucetRefusal(r.error) ? FAUCET_TEXT[r.error] : r.message;
        core.notify({ title: FAUCET_TEXT.failedTitle, text, tone: 'orange', durationMs: MONEY_DURATION.medium });
        return { ok: false, error: text };
      }
      await core.refreshSession();
      core.notify({ title: FAUCET_TEXT.claimedTitle, text: FAUCET_TEXT.claimed(r.value.amount), tone: 'green', durationMs: MONEY_DURATION.medium });
      return { ok: true, amount: r.value.amount };
    },

    async createRecoveryCode() {
      const r = await money.recoveryCode();
      if (r.ok) room.recoveryCodeSaved();
      return r.ok ? { ok: true, code: r.value.code } : red('Unable to create a recovery code', r.message); // ours
    },

    async signOutOtherBrowsers() {
      const r = await money.signOutOthers();
      if (!r.ok) return red(ACCOUNT_TEXT.signOutFailed, r.message);
      core.notify({ title: ACCOUNT_TEXT.othersSignedOutTitle, text: ACCOUNT_TEXT.othersSignedOutText, tone: 'green', durationMs: MONEY_DURATION.medium });
      return { ok: true };
    },

    async recoverSession(code) {
      const r = await money.recover(code);
      if (!r.ok) return red(r.status === 429 ? 'Too many attempts' : 'Wrong recovery code', r.message); // ours
      core.clearSession();
      await core.refreshSession();
      return { ok: true };
    },

    accountMergeCheck() {
      return room.checkAccount();
    },
  };
}
