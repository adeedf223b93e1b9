import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/projections/memory-store';
import { deleteWhere, put, remove, update, updateWhere } from '../../../src/projections/writes';
import { sampleMessage } from '../../bench/log-append/sample-log';

const msg = (id: number, slug: string) => sampleMessage({ id, conversationSlug: slug, timestamp: 1_700_000_000_000 + id, role: 'user', prompt: `m${id}` });

describe('MemoryStore', () => {
  it('never modifies a row it was given (updates replace rows)', () => {
    const s = new MemoryStore();
    const row = msg(1, 'a');
    s.apply(put('messages', row));
    s.apply(update('messages', 1, { prompt: 'changed' }));
    expect(row.prompt).toBe('m1');
    expect(s.get('messages', 1)?.prompt).toBe('changed');
    expect(s.get('messages', 1)).not.toBe(row);
  });

  it('update of a missing row is a no-op; undefined removes a property', () => {
    const s = new MemoryStore();
    s.apply(update('messages', 9, { prompt: 'x' }));
    expect(s.size('messages')).toBe(0);
    s.apply(put('messages', { ...msg(1, 'a'), error: 'e' }));
    s.apply(update('messages', 1, { error: undefined }));
    expect('error' in (s.get('messages', 1) as object)).toBe(false);
  });

  it('updateWhere / deleteWhere use an index kept up to date by later writes', () => {
    const s = new MemoryStore();
    s.applyAll([put('messages', msg(1, 'a')), put('messages', msg(2, 'a')), put('messages', msg(3, 'b'))]);
    s.apply(updateWhere('messages', 'conversationSlug', 'a', { model: 'x' }));
    expect(s.rows('messages').map((m) => m.model)).toEqual(['x', 'x', 'chatgpt-4o-latest']);
    // index maintained: move 2 to 'b', replace 3 with slug 'a', add 4 in 'a', delete 1
    s.apply(update('messages', 2, { conversationSlug: 'b' }));
    s.apply(put('messages', msg(3, 'a')));
    s.apply(put('messages', msg(4, 'a')));
    s.apply(remove('messages', 1));
    s.apply(updateWhere('messages', 'conversationSlug', 'a', { model: 'y' }));
    expect(s.rows('messages').map((m) => [m.id, m.conversationSlug, m.model])).toEqual([
      [2, 'b', 'x'],
      [3, 'a', 'y'],
      [4, 'a', 'y'],
    ]);
    s.apply(deleteWhere('messages', 'conversationSlug', 'a'));
    expect(s.rows('messages').map((m) => m.id)).toEqual([2]);
    s.apply(deleteWhere('messages', 'conversationSlug', 'nothing'));
    expect(s.size('messages')).toBe(1);
  });

  it('updateWhere that changes the indexed field itself moves every matching row', () => {
    const s = new MemoryStore();
    s.applyAll([put('messages', msg(1, 'a')), put('messages', msg(2, 'a'))]);
    s.apply(updateWhere('messages', 'conversationSlug', 'a', { conversationSlug: 'z' }));
    s.apply(updateWhere('messages', 'conversationSlug', 'z', { model: 'moved' }));
    expect(s.rows('messages').map((m) => [m.conversationSlug, m.model])).toEqual([
      ['z', 'moved'],
      ['z', 'moved'],
    ]);
  });
});
