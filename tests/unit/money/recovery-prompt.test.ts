/** When the recovery-code prompt shows (spec 001 section 7, canMigrate): a balance, no code, not put off. */
import { describe, expect, it } from 'vitest';
import { RECOVERY_PROMPT_SNOOZE_MS, shouldAskForRecoveryCode } from '../../../src/protocol/recovery-prompt';
import { DEFAULT_PREFERENCES, checkPreferenceChanges } from '../../../src/protocol/preferences';

const now = 1_800_000_000_000;
const canMigrate = { canMigrate: true, hasRecoveryCode: false };

describe('shouldAskForRecoveryCode', () => {
  it('asks a user with a balance whose session can migrate', () => {
    expect(shouldAskForRecoveryCode({ canUsePaidModels: true, account: canMigrate, snoozedUntil: DEFAULT_PREFERENCES.recoveryPromptSnoozedUntil, now })).toBe(true);
  });
  it('does not ask without a balance, once a code is saved, before the check answered, or while put off', () => {
    expect(shouldAskForRecoveryCode({ canUsePaidModels: false, account: canMigrate, snoozedUntil: 0, now })).toBe(false);
    expect(shouldAskForRecoveryCode({ canUsePaidModels: true, account: { canMigrate: false, hasRecoveryCode: true }, snoozedUntil: 0, now })).toBe(false);
    expect(shouldAskForRecoveryCode({ canUsePaidModels: true, account: null, snoozedUntil: 0, now })).toBe(false);
    expect(shouldAskForRecoveryCode({ canUsePaidModels: true, account: canMigrate, snoozedUntil: now + 1, now })).toBe(false);
  });
  it('"Not now" puts it off a week, then asks again', () => {
    const snoozedUntil = now + RECOVERY_PROMPT_SNOOZE_MS;
    expect(RECOVERY_PROMPT_SNOOZE_MS).toBe(604_800_000);
    expect(shouldAskForRecoveryCode({ canUsePaidModels: true, account: canMigrate, snoozedUntil, now: snoozedUntil - 1 })).toBe(false);
    expect(shouldAskForRecoveryCode({ canUsePaidModels: true, account: canMigrate, snoozedUntil, now: snoozedUntil })).toBe(true);
  });
  it('the snooze preference takes a whole non-negative time only', () => {
    expect(checkPreferenceChanges({ recoveryPromptSnoozedUntil: now })).toBeNull();
    expect(checkPreferenceChanges({ recoveryPromptSnoozedUntil: -1 })).toContain('recoveryPromptSnoozedUntil');
    expect(checkPreferenceChanges({ recoveryPromptSnoozedUntil: '1' })).toContain('recoveryPromptSnoozedUntil');
  });
});
