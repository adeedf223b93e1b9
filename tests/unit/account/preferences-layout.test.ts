/** The interface preferences of spec 001 section 3: defaults of section 9, checks, and the window clamps of section 5. */
import { describe, expect, it } from 'vitest';
import { clampConversationWidth, clampInputHeight, clampInputWidth, maxInputHeight, maxInputWidth } from '../../../src/protocol/layout';
import { checkPreferenceChanges, DEFAULT_PREFERENCES } from '../../../src/protocol/preferences';
import { useOfflineEngines } from '../engine/offline-engine';
import { readLog } from '../../../src/worker/log';

describe('interface preference defaults and checks', () => {
  it('defaults: input height 40, input width 750, conversation width 1200, dark, Enter sends, paste to file on', () => {
    expect(DEFAULT_PREFERENCES).toMatchObject({
      inputHeight: 40,
      inputWidth: 750,
      conversationWidth: 1200,
      theme: 'dark',
      enterSendsMessage: true,
      largeTextPasteToFile: true,
      showThinkingBlocks: true,
      autoGenerateTitle: false,
      sidebarOpen: true,
      navbarCollapsed: false,
      messageMenuDisabled: false,
      lastUsedSearchTerm: '',
      conversationsSidebarVisible: true,
      expandedFolderIds: [],
      installBannerHidden: false,
      hasBeenAskedAboutAutoTitle: false,
      showExamplePromptsCarousel: true,
      codeLanguage: 'python',
    });
  });

  it.each([
    [{ inputHeight: 39 }, 'inputHeight'],
    [{ inputHeight: 801 }, 'inputHeight'],
    [{ inputHeight: 100.5 }, 'inputHeight'],
    [{ inputWidth: 319 }, 'inputWidth'],
    [{ conversationWidth: 100 }, 'conversationWidth'],
    [{ expandedFolderIds: [1, '2'] }, 'expandedFolderIds'],
    [{ expandedFolderIds: 'all' }, 'expandedFolderIds'],
    [{ lastUsedSearchTerm: 'x'.repeat(201) }, 'lastUsedSearchTerm'],
    [{ sidebarOpen: 'yes' }, 'sidebarOpen'],
    [{ installBannerHidden: 1 }, 'installBannerHidden'],
  ])('refuses %j', (changes, field) => {
    expect(checkPreferenceChanges(changes)).toMatch(new RegExp(`^${field} is not valid`));
  });

  it('accepts the bounds themselves', () => {
    expect(checkPreferenceChanges({ inputHeight: 40, inputWidth: 320, conversationWidth: 480, expandedFolderIds: [1, 2], lastUsedSearchTerm: '' })).toBeNull();
    expect(checkPreferenceChanges({ inputHeight: 800, inputWidth: 4000, conversationWidth: 4000 })).toBeNull();
  });
});

describe('window clamps (spec 001 section 5)', () => {
  it('input height: between 40 and min(max(200, 75% of the window height), 800)', () => {
    expect(maxInputHeight(850)).toBe(637.5);
    expect(maxInputHeight(200)).toBe(200);
    expect(maxInputHeight(2000)).toBe(800);
    expect(clampInputHeight(10, 850)).toBe(40);
    expect(clampInputHeight(300, 850)).toBe(300);
    expect(clampInputHeight(800, 850)).toBe(638);
    expect(clampInputHeight(800, 400)).toBe(300);
    expect(clampInputHeight(800, 100)).toBe(200);
    expect(clampInputHeight(Number.NaN, 850)).toBe(40);
  });

  it('input width: between 320 and max(600, window width - 280)', () => {
    expect(maxInputWidth(1366)).toBe(1086);
    expect(maxInputWidth(390)).toBe(600);
    expect(clampInputWidth(100, 1366)).toBe(320);
    expect(clampInputWidth(750, 1366)).toBe(750);
    expect(clampInputWidth(2000, 1366)).toBe(1086);
    expect(clampInputWidth(2000, 390)).toBe(600);
    expect(clampConversationWidth(100)).toBe(480);
    expect(clampConversationWidth(1200)).toBe(1200);
  });
});

const newEngine = useOfflineEngines();

describe('list preferences', () => {
  it('expandedFolderIds: the same list again logs nothing', async () => {
    const engine = newEngine('prefs-lists');
    await engine.whenStarted();
    await engine.setPreferences({ expandedFolderIds: [3, 1] });
    await engine.setPreferences({ expandedFolderIds: [3, 1] });
    await engine.setPreferences({ expandedFolderIds: [1] });
    const events = (await readLog(engine.db)).filter((e) => e.type === 'preferences.changed');
    expect(events.map((e) => (e.payload as { changes: unknown }).changes)).toEqual([{ expandedFolderIds: [3, 1] }, { expandedFolderIds: [1] }]);
  });
});
