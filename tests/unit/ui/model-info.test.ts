import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../../src/protocol/api';
import { capabilityWords, filterModels, formatContextLength, formatPrice, groupByProvider, providerLabel } from '../../../src/ui/components/model-info';
import { formatCost, formatTotalCost } from '../../../src/ui/components/cost-format';

const model = (id: string, provider: string, extra: Partial<ModelInfo> = {}): ModelInfo => ({
  id,
  name: id.toUpperCase(),
  modality: 'text',
  provider,
  pricing: { input: '0', output: '0' },
  capabilities: [],
  free: true,
  offline: false,
  ...extra,
});

const catalogue = [
  model('gpt-4o', 'openai', { free: false, pricing: { input: '2.500000', output: '10' }, capabilities: ['vision', 'tools'], contextLength: 128000 }),
  model('echo', 'offline', { offline: true }),
  model('gpt-4o-mini', 'openai', { free: false, pricing: { input: '0.15', output: '0.60' } }),
  model('llama3', 'ollama', { capabilities: ['tools'] }),
];

describe('model picker facts', () => {
  it('prices per million tokens, input then output, trailing zeros trimmed', () => {
    expect(formatPrice(catalogue[0]!)).toBe('$2.5 / $10 per 1M tokens');
    expect(formatPrice(catalogue[2]!)).toBe('$0.15 / $0.6 per 1M tokens');
  });

  it('context lengths in K and M, binary sizes read as round numbers', () => {
    expect(formatContextLength(128000)).toBe('128K context');
    expect(formatContextLength(131072)).toBe('128K context');
    expect(formatContextLength(8192)).toBe('8K context');
    expect(formatContextLength(1048576)).toBe('1M context');
    expect(formatContextLength(2000000)).toBe('2M context');
    expect(formatContextLength(1500000)).toBe('1.5M context');
    expect(formatContextLength(512)).toBe('512 tokens context');
  });

  it('groups by provider in catalogue order, keeping the order within a group', () => {
    const groups = groupByProvider(catalogue);
    expect(groups.map((g) => [g.label, g.models.map((m) => m.id)])).toEqual([
      ['OpenAI', ['gpt-4o', 'gpt-4o-mini']],
      ['Built in (offline)', ['echo']],
      ['Ollama', ['llama3']],
    ]);
    expect(providerLabel('fake')).toBe('Fake');
  });

  it('search matches every word against name, id, provider, capabilities and "free"', () => {
    expect(filterModels(catalogue, '').map((m) => m.id)).toEqual(['gpt-4o', 'echo', 'gpt-4o-mini', 'llama3']);
    expect(filterModels(catalogue, 'MINI').map((m) => m.id)).toEqual(['gpt-4o-mini']);
    expect(filterModels(catalogue, 'openai vision').map((m) => m.id)).toEqual(['gpt-4o']);
    expect(filterModels(catalogue, 'tools').map((m) => m.id)).toEqual(['gpt-4o', 'llama3']);
    expect(filterModels(catalogue, 'free').map((m) => m.id)).toEqual(['echo', 'llama3']);
    expect(filterModels(catalogue, 'offline').map((m) => m.id)).toEqual(['echo']);
    expect(filterModels(catalogue, 'nothing-like-this')).toEqual([]);
  });
});

describe('capabilityWords (issue 16 item 6)', () => {
  it('names capabilities in plain words and leaves out what every chat model does', () => {
    expect(capabilityWords(['chat', 'streaming', 'vision', 'image-lines'])).toEqual(['Sees images', 'Makes images']);
    expect(capabilityWords(['chat', 'streaming', 'thinking', 'markdown', 'math'])).toEqual(['Reasoning', 'Math']);
    expect(capabilityWords(['web', 'web-search', 'long_context'])).toEqual(['Web search', 'Long context']);
  });
});

describe('costs', () => {
  it('floors to 6 decimals in the currency paid', () => {
    expect(formatCost(0.0000129, 'USD')).toBe('$0.000012');
    expect(formatCost(0.003147, 'USD')).toBe('$0.0031');
    expect(formatCost(0.25, 'USD')).toBe('$0.25');
    expect(formatCost(0.000003, undefined)).toBe('$0.000003');
    expect(formatCost(1.5, 'nano')).toBe('1.5 XNO');
  });

  it('totals a conversation without float drift, per currency, and says nothing when nothing was charged', () => {
    expect(formatTotalCost([{ cost: 0 }, {}])).toBeNull();
    const tenths = Array.from({ length: 10 }, () => ({ cost: 0.000001, paymentSource: 'USD' as const }));
    expect(formatTotalCost(tenths)).toBe('Total $0.00001');
    expect(formatTotalCost([{ cost: 0.1, paymentSource: 'USD' }, { cost: 0.2, paymentSource: 'USD' }])).toBe('Total $0.30');
    expect(formatTotalCost([{ cost: 0.5, paymentSource: 'nano' }])).toBe('Total 0.5 XNO');
    expect(formatTotalCost([{ cost: 0.25 }, { cost: 0.5, paymentSource: 'nano' }])).toBe('Total $0.25 + 0.5 XNO');
  });
});
