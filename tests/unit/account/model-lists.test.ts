/** The model picker's lists (spec 001 section 3 local storage keys): pinned, recent, visible, categories, open source. */
import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../../src/protocol/api';
import { allCategories, isOpenSource, pickerGroups, pushRecent, toggle, type ModelLists } from '../../../src/ui/account/model-lists';

const model = (id: string, over: Partial<ModelInfo> = {}): ModelInfo => ({
  id, name: id, modality: 'text', provider: 'openrouter', pricing: { input: '1', output: '2' }, capabilities: [], free: false, offline: false, ...over,
});
const models = [
  model('gpt-x'),
  model('llama-3-70b', { capabilities: ['tools'] }),
  model('claude-y', { provider: 'anthropic', capabilities: ['vision'] }),
  model('parley-offline', { provider: 'offline', offline: true, free: true }),
];
const lists = (over: Partial<ModelLists> = {}): ModelLists => ({ pinned: [], recent: [], visible: null, categories: [], openSourceOnly: false, ...over });
const ids = (g: ReturnType<typeof pickerGroups>) => g.groups.map((x) => [x.label, x.models.map((m) => m.id)]);

describe('model lists', () => {
  it('recent keeps 5, newest first, without repeats; toggle pins and unpins', () => {
    expect(pushRecent(['a', 'b', 'c', 'd', 'e'], 'c')).toEqual(['c', 'a', 'b', 'd', 'e']);
    expect(pushRecent(['a', 'b', 'c', 'd', 'e'], 'f')).toEqual(['f', 'a', 'b', 'c', 'd']);
    expect(toggle(['a'], 'b')).toEqual(['a', 'b']);
    expect(toggle(['a', 'b'], 'a')).toEqual(['b']);
  });

  it('pinned first, then recent, then the rest by provider, each model once', () => {
    expect(ids(pickerGroups(models, lists({ pinned: ['claude-y'], recent: ['claude-y', 'gpt-x'] }), ''))).toEqual([
      ['Pinned', ['claude-y']],
      ['Recently used', ['gpt-x']],
      ['OpenRouter', ['llama-3-70b']],
      ['Built in (offline)', ['parley-offline']],
    ]);
  });

  it('hidden models, the open-source switch and categories filter; the chosen model always stays', () => {
    const hidden = pickerGroups(models, lists({ visible: ['gpt-x', 'parley-offline'] }), 'claude-y');
    expect(hidden.hidden).toBe(1);
    expect(ids(hidden).flatMap(([, m]) => m)).toEqual(['gpt-x', 'claude-y', 'parley-offline']);
    expect(ids(pickerGroups(models, lists({ openSourceOnly: true }), '')).flatMap(([, m]) => m)).toEqual(['llama-3-70b', 'parley-offline']);
    expect(ids(pickerGroups(models, lists({ categories: ['free', 'vision'] }), '')).flatMap(([, m]) => m)).toEqual(['claude-y', 'parley-offline']);
    expect(allCategories(models)).toEqual(['free', 'tools', 'vision']);
    expect(isOpenSource(model('qwen2.5-coder'))).toBe(true);
    expect(isOpenSource(model('gpt-4o'))).toBe(false);
  });
});
