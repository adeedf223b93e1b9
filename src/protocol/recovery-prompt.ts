/**
 * When the app asks a user to save a recovery code (spec 001 section 7, account-merge-check's canMigrate): the
 * session holds a balance above the paid-use threshold, the gateway says it can migrate (worth carrying to another
 * browser, no recovery code yet), and the user has not put the question off. Pure; the prompt is
 * `RecoveryPrompt` in src/ui/account/Banners.tsx, the check is the money room's (rooms/money/money-room.ts).
 */
import type { AccountCheck } from './engine-money';

/** "Not now" puts the question off this long (a week). */
export const RECOVERY_PROMPT_SNOOZE_MS = 7 * 24 * 3600 * 1000;

export const RECOVERY_PROMPT_TEXT = {
  title: 'Keep your balance safe',
  text: "Your balance is kept with this browser's session. If this browser's data is cleared, or you open Parley in another browser, a recovery code is the only way back to it.",
  save: 'Save a recovery code',
  later: 'Not now',
  saveNow: 'Save this code somewhere safe (a password manager, or on paper). It will not be shown again:',
  saved: 'I saved it',
} as const;

export function shouldAskForRecoveryCode(input: { canUsePaidModels: boolean; account: AccountCheck | null; snoozedUntil: number; now: number }): boolean {
  return input.canUsePaidModels && input.account?.canMigrate === true && input.now >= input.snoozedUntil;
}
