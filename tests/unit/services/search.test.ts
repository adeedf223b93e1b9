import { describe, expect, it } from 'vitest';
import type { ConversationRow, MessageRow } from '../../../src/events/model';
import { CHUNK_MESSAGES, makeSnippet, MAX_COMPLETIONS, SearchIndex } from '../../../src/worker/rooms/conversations/search';

const conversation = (id: number, slug: string, name: string): ConversationRow => ({
  id, uuid: `u${id}`, slug, name, createdAt: id, updatedAt: id, latestMessage: '', isMediaOnly: false,
});
const message = (id: number, slug: string, prompt: string): MessageRow => ({
  id, conversationSlug: slug, timestamp: id, role: 'user', prompt, model: 'm', status: 'done',
  parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: id,
});

describe('SearchIndex', () => {
  it('finds a message in a later chunk of a long conversation, with its id and a snippet around the match', () => {
    const index = new SearchIndex();
    const long = Array.from({ length: CHUNK_MESSAGES * 2 + 3 }, (_, i) => message(100 + i, 'long', `filler text number ${i}`));
    long[CHUNK_MESSAGES + 5] = message(100 + CHUNK_MESSAGES + 5, 'long', 'the lighthouse keeper kept a very long diary of storms');
    index.load([conversation(1, 'long', 'Long one'), conversation(2, 'short', 'Short one')], [...long, message(99, 'short', 'hello')]);
    expect(index.documentCount).toBe(2 + 3 + 1); // two names, three chunks, one chunk
    const [hit] = index.search('lighthou');
    expect(hit).toEqual({ slug: 'long', name: 'Long one', messageId: 100 + CHUNK_MESSAGES + 5, snippet: 'the lighthouse keeper kept a very long diary of storms' });
    expect(index.search('short').map((h) => [h.slug, h.messageId])).toEqual([['short', null]]);
  });

  it('re-indexes a changed message, drops a removed one, and forgets a purged conversation', () => {
    const index = new SearchIndex();
    index.load([conversation(1, 'a', 'Alpha')], [message(10, 'a', 'pending')]);
    index.setMessage(11, 'a', 'first draft about comets');
    expect(index.search('comets')).toHaveLength(1);
    index.setMessage(11, 'a', 'final answer about asteroids');
    expect(index.search('comets')).toEqual([]);
    expect(index.search('asteroids')[0]?.messageId).toBe(11);
    index.removeMessage(11);
    expect(index.search('asteroids')).toEqual([]);
    index.setHidden('a', true);
    expect(index.search('alpha')).toEqual([]);
    index.setHidden('a', false);
    expect(index.search('alpha')).toHaveLength(1);
    index.removeConversation('a');
    expect(index.search('alpha')).toEqual([]);
    expect(index.search('pending')).toEqual([]);
  });

  it('needs every word, the last one as a prefix limited to its shortest completions', () => {
    const index = new SearchIndex();
    const words = Array.from({ length: MAX_COMPLETIONS + 10 }, (_, i) => `star${'x'.repeat(i)}`);
    index.load(
      [conversation(1, 'a', 'A'), conversation(2, 'b', 'B')],
      [message(10, 'a', `red ${words.join(' ')}`), message(11, 'b', `blue ${words.at(-1)}`)],
    );
    expect(index.search('red sta').map((h) => h.slug)).toEqual(['a']);
    // The longest completion is beyond the cap: the prefix alone does not reach it, the whole word does.
    expect(index.search('blue sta')).toEqual([]);
    expect(index.search(`blue ${words.at(-1)}`).map((h) => h.slug)).toEqual(['b']);
    expect(index.search('s')).toEqual([]);
  });
});

describe('makeSnippet', () => {
  it('cuts around the first match at a word start, with ellipses where it cut', () => {
    const text = `${'a '.repeat(60)}the needle is here ${'b '.repeat(60)}`;
    const s = makeSnippet(text, ['needle'], 10);
    expect(s).toBe('…a a a the needle is here b…');
    expect(makeSnippet('short text', ['nothing'])).toBe('short text');
  });
});
