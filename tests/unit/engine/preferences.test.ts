import { describe, expect, it } from 'vitest';
import { filter, firstValueFrom } from 'rxjs';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { makeEvent } from '../../../src/events/catalogue';
import { upcast } from '../../../src/events/upcasters';
import { checkPayload } from '../../../src/events/validate';
import { foldPreferences } from '../../../src/projections/preferences';
import { DEFAULT_PREFERENCES, type Preferences } from '../../../src/protocol/preferences';
import type { Engine } from '../../../src/worker/engine';
import { useOfflineEngines } from './offline-engine';
import { readLog } from '../../../src/worker/log';

// Preferences need no gateway.
const newEngine = useOfflineEngines();

const prefs = (engine: Engine, until: (p: Preferences) => boolean = () => true) =>
  firstValueFrom(engine.observe({ kind: 'preferences' }).pipe(filter(until)));

async function preferenceEvents(engine: Engine) {
  return (await readLog(engine.db)).filter((e) => e.type === 'preferences.changed');
}

describe('preferences', () => {
  it('start at the spec defaults (dark, 8192 max tokens, Enter sends, thinking shown, no auto titles)', async () => {
    const engine = newEngine('prefs-defaults');
    await engine.whenStarted();
    expect(await prefs(engine)).toEqual(DEFAULT_PREFERENCES);
    expect(DEFAULT_PREFERENCES).toMatchObject({ theme: 'dark', maxTokens: 8192, enterSendsMessage: true, showThinkingBlocks: true, autoGenerateTitle: false });
    // Spec 001 section 9: standard web search depth, ask before scraping a URL, the scratchpad split in half.
    expect(await prefs(engine)).toMatchObject({ linkupDepth: 'standard', urlScrapingPreference: 'ask', scratchpadHorizontalSplit: 50 });
  });

  it('are logged as preferences.changed with only the changed fields, and survive an engine restart', async () => {
    const engine = newEngine('prefs-restart');
    await engine.whenStarted();
    await engine.setPreferences({ theme: 'light', maxTokens: 4000, enterSendsMessage: true });
    await engine.setPreferences({ defaultModel: 'fake-model' });
    expect(await prefs(engine, (p) => p.defaultModel === 'fake-model')).toMatchObject({ theme: 'light', maxTokens: 4000, defaultModel: 'fake-model' });
    const events = await preferenceEvents(engine);
    // enterSendsMessage was already true: not logged.
    expect(events.map((e) => e.payload)).toEqual([
      { changes: { theme: 'light', maxTokens: 4000 }, at: expect.any(Number) },
      { changes: { defaultModel: 'fake-model' }, at: expect.any(Number) },
    ]);
    // Setting what is already set logs nothing.
    await engine.setPreferences({ theme: 'light' });
    expect(await preferenceEvents(engine)).toHaveLength(2);
    await engine.dispose();

    const again = newEngine('prefs-restart');
    await again.whenStarted();
    expect(again.preferences$.value).toEqual({ ...DEFAULT_PREFERENCES, theme: 'light', maxTokens: 4000, defaultModel: 'fake-model' });
  });

  it('refuse an unknown field or an invalid value, and log nothing', async () => {
    const engine = newEngine('prefs-invalid');
    await engine.whenStarted();
    await expect(engine.setPreferences({ maxTokens: 0 })).rejects.toThrow('Invalid preferences: maxTokens is not valid: 0');
    await expect(engine.setPreferences({ maxTokens: 12.5 })).rejects.toThrow('maxTokens');
    await expect(engine.setPreferences({ theme: 'purple' as Preferences['theme'] })).rejects.toThrow("theme is not valid: \"purple\"");
    await expect(engine.setPreferences({ colour: 'red' } as unknown as Partial<Preferences>)).rejects.toThrow("unknown preference 'colour'");
    // One bad field spoils the whole change: the good one is not applied either.
    await expect(engine.setPreferences({ theme: 'light', defaultModel: '' })).rejects.toThrow('defaultModel');
    expect(await preferenceEvents(engine)).toHaveLength(0);
    expect(engine.preferences$.value).toEqual(DEFAULT_PREFERENCES);
  });

  it('replay: the exported log folded in Node gives the engine\'s preferences', async () => {
    const engine = newEngine('prefs-replay');
    await engine.whenStarted();
    await engine.setPreferences({ theme: 'system' });
    await engine.setPreferences({ autoGenerateTitle: true, hasBeenAskedAboutAutoTitle: true });
    await engine.setPreferences({ theme: 'dark', showThinkingBlocks: false });
    const log = decodeLog(await engine.exportLog());
    const folded = foldPreferences(log.events.map((e) => upcast(e, { validate: true })));
    expect(folded).toEqual(engine.preferences$.value);
    expect(folded).toEqual({ ...DEFAULT_PREFERENCES, theme: 'dark', autoGenerateTitle: true, hasBeenAskedAboutAutoTitle: true, showThinkingBlocks: false });
  });

  it('an imported log brings its preferences with it', async () => {
    const engine = newEngine('prefs-import');
    await engine.whenStarted();
    const now = Date.now();
    const text = encodeLog([makeEvent('preferences.changed', { changes: { maxTokens: 2048, theme: 'light' }, at: now }, 'pref-import-1', now)], { exportedAt: now });
    await engine.importLog(text);
    expect(await prefs(engine, (p) => p.maxTokens === 2048)).toMatchObject({ maxTokens: 2048, theme: 'light' });
  });
});

describe('preferences.changed validation', () => {
  it('accepts valid changes and names the bad field otherwise', () => {
    expect(checkPayload('preferences.changed', { changes: { theme: 'light', defaultModel: null }, at: 1 })).toBeNull();
    expect(checkPayload('preferences.changed', { changes: { maxTokens: -1 }, at: 1 })).toBe('payload.changes: maxTokens is not valid: -1');
    expect(checkPayload('preferences.changed', { changes: { nope: true }, at: 1 })).toBe("payload.changes: unknown preference 'nope'");
    expect(checkPayload('preferences.changed', { at: 1 })).toBe('payload.changes is missing');
  });

  it('folding skips what this build does not know instead of applying it', () => {
    const event = { type: 'preferences.changed' as const, v: 1, id: 'x', at: 1, payload: { changes: { theme: 'light', future: 1 } as Partial<Preferences>, at: 1 } };
    expect(foldPreferences([event])).toEqual({ ...DEFAULT_PREFERENCES, theme: 'light' });
  });
});
