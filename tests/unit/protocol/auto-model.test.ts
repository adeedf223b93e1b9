/** The Auto model's choice (protocol/auto-model.ts): cheapest capable, vision, the balance, context, determinism. */
import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../../src/protocol/api';
import { autoReplyLabel, chooseAutoModel, type AutoNeeds } from '../../../src/protocol/auto-model';

function model(id: string, input: string, output: string, over: Partial<ModelInfo> = {}): ModelInfo {
  const free = input === '0' && output === '0';
  return { id, name: id, modality: 'text', provider: 'p', pricing: { input, output }, capabilities: ['chat', 'streaming'], free, offline: false, ...over };
}
const catalogue: ModelInfo[] = [
  model('pricey', '5', '15'),
  model('vision-big', '2.5', '10', { capabilities: ['chat', 'streaming', 'vision'] }),
  model('cheap', '0.1', '0.2', { contextLength: 1000 }),
  model('mid', '0.5', '1', { contextLength: 200_000 }),
  model('offline', '0', '0', { offline: true, provider: 'offline' }),
  model('painter', '0', '0', { modality: 'image' }),
];
const needs = (over: Partial<AutoNeeds> = {}): AutoNeeds => ({ vision: false, web: false, tokens: 500, canUsePaid: true, ...over });

describe('chooseAutoModel', () => {
  it('picks the cheapest text model that can do what the prompt needs', () => {
    expect(chooseAutoModel(catalogue, 'pricey', needs())?.id).toBe('cheap');
  });
  it('picks a model that takes images when images are attached', () => {
    expect(chooseAutoModel(catalogue, 'pricey', needs({ vision: true }))?.id).toBe('vision-big');
  });
  it('skips a model whose context cannot hold the request', () => {
    expect(chooseAutoModel(catalogue, 'pricey', needs({ tokens: 5000 }))?.id).toBe('mid');
  });
  it('picks a free model when the balance cannot pay for a paid one, a provider model before the offline one', () => {
    expect(chooseAutoModel(catalogue, 'pricey', needs({ canUsePaid: false }))?.id).toBe('offline');
    const withFree = [...catalogue, model('free-chat', '0', '0')];
    expect(chooseAutoModel(withFree, 'pricey', needs({ canUsePaid: false, vision: true }))?.id).toBe('free-chat');
    // A free vision model wins over describing the image for a free text model.
    const withFreeVision = [...withFree, model('free-vision', '0', '0', { capabilities: ['chat', 'vision'] })];
    expect(chooseAutoModel(withFreeVision, 'pricey', needs({ canUsePaid: false, vision: true }))?.id).toBe('free-vision');
  });
  it('prefers a model marked for the web when web search is on and the catalogue has one', () => {
    const web = [...catalogue, model('searcher', '1', '2', { capabilities: ['chat', 'web'] })];
    expect(chooseAutoModel(web, 'pricey', needs({ web: true }))?.id).toBe('searcher');
    expect(chooseAutoModel(catalogue, 'pricey', needs({ web: true }))?.id).toBe('cheap');
  });
  it('is deterministic: ties go to the default model, then the longest context, then the id, whatever the order', () => {
    const tied = [model('b', '1', '1', { contextLength: 10_000 }), model('a', '1', '1', { contextLength: 10_000 }), model('c', '1', '1', { contextLength: 20_000 })];
    expect(chooseAutoModel(tied, 'zzz', needs())?.id).toBe('c');
    expect(chooseAutoModel([...tied].reverse(), 'b', needs())?.id).toBe('b');
    expect(chooseAutoModel(tied.slice(0, 2), 'zzz', needs())?.id).toBe('a');
    expect(chooseAutoModel([model('painter', '0', '0', { modality: 'image' })], 'x', needs())).toBeUndefined();
  });
  it('labels the reply "Auto · <model name>"', () => {
    expect(autoReplyLabel('GPT-4o')).toBe('Auto · GPT-4o');
  });
});
