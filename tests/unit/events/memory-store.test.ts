import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/projections/memory-store';
import { cloneStore } from '../../../src/inspect/state';
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

  it('a row handed out (map, get, rows, a cloned snapshot) never changes under later updates', () => {
    const s = new MemoryStore();
    const given = msg(1, 'a');
    s.apply(put('messages', given));
    // Updates before any read: the store may work on its own copy, but never on the row it was given.
    s.apply(update('messages', 1, { prompt: 'p1' }));
    s.apply(update('messages', 1, { prompt: 'p2', thinking: 't' }));
    expect(given.prompt).toBe('m1');
    expect('thinking' in given).toBe(false);

    const viaGet = s.get('messages', 1);
    s.apply(update('messages', 1, { prompt: 'p3' }));
    const viaRows = s.rows('messages')[0];
    s.apply(update('messages', 1, { prompt: 'p4', error: 'e' }));
    const viaMap = s.map('messages').get(1);
    const snapshot = cloneStore(s);
    s.apply(update('messages', 1, { prompt: 'p5', error: undefined }));
    s.apply(updateWhere('messages', 'conversationSlug', 'a', { model: 'm' }));

    expect(viaGet?.prompt).toBe('p2');
    expect(viaRows?.prompt).toBe('p3');
    expect(viaMap?.prompt).toBe('p4');
    expect(viaMap?.error).toBe('e');
    expect(snapshot.get('messages', 1)).toMatchObject({ prompt: 'p4', error: 'e', model: 'chatgpt-4o-latest' });
    expect(s.get('messages', 1)).toMatchObject({ prompt: 'p5', model: 'm', thinking: 't' });
    expect('error' in (s.get('messages', 1) as object)).toBe(false);
  });

  it('a snapshot folded further never changes the store it was cloned from, nor the other way round', () => {
    const s = new MemoryStore();
    s.applyAll([put('messages', msg(1, 'a')), put('messages', msg(2, 'a'))]);
    s.apply(update('messages', 1, { prompt: 'x' }));
    const copy = cloneStore(s);
    s.apply(update('messages', 1, { prompt: 'in original', error: 'only in the original' }));
    copy.apply(update('messages', 1, { prompt: 'in copy' }));
    copy.apply(updateWhere('messages', 'conversationSlug', 'a', { model: 'copy' }));
    expect(copy.rows('messages').map((m) => [m.prompt, m.model])).toEqual([
      ['in copy', 'copy'],
      ['m2', 'copy'],
    ]);
    expect('error' in (copy.get('messages', 1) as object)).toBe(false);
    expect(s.rows('messages').map((m) => [m.prompt, m.model])).toEqual([
      ['in original', 'chatgpt-4o-latest'],
      ['m2', 'chatgpt-4o-latest'],
    ]);
  });

  it('a copy made after an index was built keeps its own index: later writes to either stay out of the other', () => {
    const s = new MemoryStore();
    s.applyAll([put('messages', msg(1, 'a')), put('messages', msg(2, 'b'))]);
    s.apply(updateWhere('messages', 'conversationSlug', 'a', { model: 'x' })); // builds the original's index
    const copy = s.clone();
    copy.apply(put('messages', msg(3, 'a')));
    copy.apply(update('messages', 2, { conversationSlug: 'a' }));
    copy.apply(updateWhere('messages', 'conversationSlug', 'a', { model: 'copy' }));
    s.apply(deleteWhere('messages', 'conversationSlug', 'a'));
    expect(copy.rows('messages').map((m) => [m.id, m.conversationSlug, m.model])).toEqual([
      [1, 'a', 'copy'],
      [2, 'a', 'copy'],
      [3, 'a', 'copy'],
    ]);
    expect(s.rows('messages').map((m) => [m.id, m.conversationSlug, m.model])).toEqual([[2, 'b', 'chatgpt-4o-latest']]);
  });

  it('a row put again after updates is the new row, and later updates leave that given row alone', () => {
    const s = new MemoryStore();
    s.apply(put('messages', msg(1, 'a')));
    s.apply(update('messages', 1, { prompt: 'x' }));
    const again = msg(1, 'b');
    s.apply(put('messages', again));
    s.apply(update('messages', 1, { prompt: 'y' }));
    expect(again.prompt).toBe('m1');
    expect(s.get('messages', 1)).toMatchObject({ prompt: 'y', conversationSlug: 'b' });
  });
});
