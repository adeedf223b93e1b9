/** Spec 000 section 9: chatgpt-4o-latest is the default text model when an upstream offers it, else its closest match. */
import { describe, expect, it } from 'vitest';
import { Catalogue, DEFAULT_TEXT_MODEL, preferredDefault } from '../../../src/server/chat/catalogue';
import type { UpstreamConfig } from '../../../src/server/config';
import { OFFLINE_MODEL_ID } from '../../../src/server/providers/offline';

const upstream = (name: string, models: string[]): UpstreamConfig => ({ name, url: 'http://127.0.0.1:9/v1', key: null, models, pricing: new Map(), params: null });

async function defaultOf(...upstreams: UpstreamConfig[]): Promise<string> {
  const c = await Catalogue.create(upstreams, { offlineTokenDelayMs: 0, log: () => undefined });
  try {
    return c.response().defaultModel;
  } finally {
    c.close();
  }
}

describe('the default text model', () => {
  it("is 'chatgpt-4o-latest' when an upstream offers it, wherever it is listed", async () => {
    expect(DEFAULT_TEXT_MODEL).toBe('chatgpt-4o-latest');
    expect(await defaultOf(upstream('a', ['llama3.2', 'gpt-4o', 'chatgpt-4o-latest']))).toBe('chatgpt-4o-latest');
    expect(await defaultOf(upstream('a', ['mistral-small']), upstream('b', ['gpt-4o-mini', 'chatgpt-4o-latest']))).toBe('chatgpt-4o-latest');
  });

  it("else the upstream's closest match (OpenRouter's prefixed id, then gpt-4o), else the first model, else the offline one", async () => {
    expect(await defaultOf(upstream('or', ['anthropic/claude-3.5-sonnet', 'openai/chatgpt-4o-latest']))).toBe('openai/chatgpt-4o-latest');
    expect(await defaultOf(upstream('a', ['gpt-4o-mini', 'gpt-4o']))).toBe('gpt-4o');
    expect(await defaultOf(upstream('a', ['llama3.2', 'qwen2.5']))).toBe('llama3.2');
    expect(await defaultOf()).toBe(OFFLINE_MODEL_ID);
    expect(preferredDefault(['gpt-4o-mini', 'o3-mini'])).toBeUndefined();
  });
});
