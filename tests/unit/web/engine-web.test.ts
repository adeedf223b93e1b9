/**
 * The engine and view side of web search and scraping, without a browser: the message.webSearched event (validated,
 * projected, replayed), what a user message sends to the model, citations of replies, URL detection in the composer,
 * citation links in Markdown, and the balance cards among suggestions.
 */
import { describe, expect, it } from 'vitest';
import type { Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { ConversationRow, MessageRow, WebSearchRecord } from '../../../src/events/model';
import { checkPayload } from '../../../src/events/validate';
import { fold } from '../../../src/projections/fold';
import type { MessageView } from '../../../src/protocol/engine';
import type { Suggestion } from '../../../src/protocol/web';
import { toChatMessage } from '../../../src/shared/history';
import { CITATION_INSTRUCTIONS, withCitations, withContextOnLastUser } from '../../../src/shared/web-context';
import { onlineModel } from '../../../src/worker/rooms/web/commands';
import { remarkCitations } from '../../../src/ui/components/web/citations';
import { balanceLevel, withBalanceCards } from '../../../src/ui/components/web/suggestion-cards';
import { findUrls } from '../../../src/ui/web-state';
import { sampleMessage } from '../../bench/log-append/sample-log';

const T0 = 1_700_000_000_000;
const SLUG = 'web';
const conversation: ConversationRow = { id: 1, uuid: 'u', slug: SLUG, name: 'Web', createdAt: T0, updatedAt: T0, latestMessage: '', isMediaOnly: false };
const webSearch: WebSearchRecord = {
  depth: 'standard',
  provider: 'searxng',
  sources: [
    { title: 'Basics', url: 'https://bread.example/basics', snippet: 'Feed it.' },
    { title: 'Bad', url: 'javascript:alert(1)', snippet: 'never a link' },
  ],
  cost: 0.006,
  paymentSource: 'USD',
  at: T0 + 5,
};

describe('message.webSearched', () => {
  it('is validated, sets the search on the user message, and replays to the same state', () => {
    const user = sampleMessage({ id: 10, conversationSlug: SLUG, timestamp: T0 + 1, role: 'user', prompt: 'How?' });
    const payload = { conversationSlug: SLUG, messageId: 10, webSearch, at: T0 + 5 };
    expect(checkPayload('message.webSearched', payload)).toBeNull();
    expect(checkPayload('message.webSearched', { ...payload, webSearch: { ...webSearch, depth: 'wide' } })).toMatch(/payload\.webSearch\.depth/);
    expect(checkPayload('message.webSearched', { ...payload, webSearch: { ...webSearch, sources: [{ title: 'x' }] } })).toMatch(/sources\[0\]\.url/);
    const events: NewEvent[] = [
      makeEvent('conversation.created', { conversation }, 'e1', T0),
      makeEvent('message.added', { message: { ...user, scrapedContent: [{ url: 'https://a.example/', title: 'A', content: 'Page A text' }] } }, 'e2', T0 + 1),
      makeEvent('message.webSearched', payload, 'e3', T0 + 5),
    ];
    const row = fold(events).get('messages', 10) as MessageRow;
    expect(row.webSearch).toEqual(webSearch);
    expect(row.updatedAt).toBe(T0 + 5);
    expect(fold(JSON.parse(JSON.stringify(events)) as NewEvent[]).get('messages', 10)).toEqual(row);

    // What the model gets with this message: the prompt, the numbered sources, the scraped page.
    const content = toChatMessage(row).content as string;
    expect(content.startsWith('How?\n\n---\n\n')).toBe(true);
    expect(content).toContain(CITATION_INSTRUCTIONS);
    expect(content).toContain('[1] Basics\nhttps://bread.example/basics\nFeed it.');
    expect(content).toContain('Content of the web page "A" (https://a.example/), scraped for this message:\n\nPage A text');
    // An assistant message is sent as it is.
    expect(toChatMessage({ ...row, role: 'assistant', prompt: 'Answer [1]' }).content).toBe('Answer [1]');
  });

  it('replies to a searched message carry its sources as citations; others do not', () => {
    const user = { ...sampleMessage({ id: 1, conversationSlug: SLUG, timestamp: T0, role: 'user', prompt: 'q' }), webSearch, text: 'q' } as MessageView;
    const reply = { ...sampleMessage({ id: 2, conversationSlug: SLUG, timestamp: T0 + 1, role: 'assistant', prompt: 'a', parentMessageId: 1 }), text: 'a' } as MessageView;
    const other = { ...sampleMessage({ id: 3, conversationSlug: SLUG, timestamp: T0 + 2, role: 'assistant', prompt: 'b', parentMessageId: 99 }), text: 'b' } as MessageView;
    const out = withCitations([user, reply, other]);
    expect(out[1]?.citations).toEqual(webSearch.sources);
    expect(out[2]?.citations).toBeUndefined();
    const plain = [reply];
    expect(withCitations(plain)).toBe(plain);
  });

  it('adds search results to the last user message of a request, and names the model with the suffix', () => {
    const messages = withContextOnLastUser([{ role: 'system', content: 'sys' }, { role: 'user', content: 'one' }, { role: 'assistant', content: 'x' }, { role: 'user', content: [{ type: 'text', text: 'two' }] }], 'SOURCES');
    expect(messages[1]?.content).toBe('one');
    expect(messages[3]?.content).toEqual([{ type: 'text', text: 'two' }, { type: 'text', text: 'SOURCES' }]);
    expect(onlineModel('gpt', 'standard')).toBe('gpt:online');
    expect(onlineModel('gpt', 'deep')).toBe('gpt:online/linkup-deep');
  });
});

describe('citations in Markdown', () => {
  const run = (md: string): Root => {
    const processor = unified().use(remarkParse).use(remarkCitations(webSearch.sources));
    return processor.runSync(processor.parse(md)) as Root;
  };
  const links = (tree: Root): { url: string; text: string }[] => {
    const out: { url: string; text: string }[] = [];
    const walk = (n: unknown): void => {
      const node = n as { type: string; url?: string; children?: unknown[] };
      if (node.type === 'link') out.push({ url: node.url ?? '', text: JSON.stringify(node.children) });
      for (const c of node.children ?? []) walk(c);
    };
    walk(tree);
    return out;
  };

  it('links [n] with an http(s) source, and nothing else', () => {
    const found = links(run('Feed it [1]. Bad [2]. Missing [3]. `code [1]` and\n\n```\nblock [1]\n```\n\n[1](https://x.example/) **bold [1]**'));
    expect(found.map((l) => l.url)).toEqual(['https://bread.example/basics', 'https://x.example/', 'https://bread.example/basics']);
  });
});

describe('composer URLs and suggestions', () => {
  it('finds http(s) URLs, trims trailing punctuation, keeps 25 unique, and is linear on hostile text', () => {
    expect(findUrls('see https://a.example/x?y=1, and (http://b.example/). Also ftp://c.example and javascript:alert(1)')).toEqual([
      'https://a.example/x?y=1',
      'http://b.example/',
    ]);
    expect(findUrls('no links here')).toEqual([]);
    const many = Array.from({ length: 40 }, (_, i) => `https://s${i}.example/`).join(' ');
    expect(findUrls(`${many} ${many}`)).toHaveLength(25);
    const hostile = `http://${'a'.repeat(200_000)}`;
    expect(findUrls(hostile)).toHaveLength(1);
  });

  it('puts one "Add balance" card, in the 3rd place with no balance, the 10th with a low one', () => {
    const items = Array.from({ length: 15 }, (_, i) => ({ id: `s${i}`, title: 't', prompt: 'p', gradient: 'g' }) satisfies Suggestion);
    expect(balanceLevel(0, 0)).toBe('none');
    expect(balanceLevel(0.05, 0)).toBe('low');
    expect(balanceLevel(0, 0.09)).toBe('low');
    expect(balanceLevel(0.1, 0)).toBe('ok');
    expect(balanceLevel(0, 0.5)).toBe('ok');
    const none = withBalanceCards(items, 'none');
    expect(none.filter((c) => c.kind === 'prompt')).toHaveLength(15);
    expect(none.map((c, i) => (c.kind === 'balance' ? i + 1 : 0)).filter(Boolean)).toEqual([3]);
    expect(withBalanceCards(items.slice(0, 1), 'none').map((c) => c.kind)).toEqual(['prompt', 'balance']);
    const low = withBalanceCards(items, 'low');
    expect(low.map((c, i) => (c.kind === 'balance' ? i + 1 : 0)).filter(Boolean)).toEqual([10]);
    expect(withBalanceCards(items, 'ok').every((c) => c.kind === 'prompt')).toBe(true);
  });
});
