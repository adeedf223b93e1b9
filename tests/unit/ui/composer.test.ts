import { describe, expect, it } from 'vitest';
import type { MessageView } from '../../../src/protocol/engine';
import { addExtraModel, applyModelChoice, composer, readAddress, removeExtraModel } from '../../../src/ui/composer-state';
import { listRows, rowsOf, updateRows } from '../../../src/ui/components/list-rows';

function msg(id: number, role: 'user' | 'assistant', extra: Partial<MessageView> = {}): MessageView {
  return {
    id, conversationSlug: 's', timestamp: id, role, prompt: `m${id}`, text: `m${id}`, model: 'a', status: 'done',
    parentMessageId: id - 1 || null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: id, ...extra,
  };
}

describe('address parameters (spec 000 section 2)', () => {
  it('reads mode, model, online, source=translate and transcriptId (removing the entry)', () => {
    const store = new Map([['k1', 'Spoken words']]);
    const storage = { getItem: (k: string) => store.get(k) ?? null, removeItem: (k: string) => void store.delete(k) };
    expect(readAddress('?mode=image&model=flux&online=true&transcriptId=k1', storage)).toEqual({ mode: 'image', model: 'flux', webSearch: true, transcript: 'Spoken words', badMode: null });
    expect(store.has('k1')).toBe(false);
    expect(readAddress('?online=true&source=translate', storage).webSearch).toBe(false);
    expect(readAddress('?mode=hologram', storage)).toMatchObject({ mode: null, badMode: 'hologram' });
    expect(readAddress('', storage)).toEqual({ mode: null, model: null, webSearch: null, transcript: null, badMode: null });
  });
});

describe('multi-model extras', () => {
  it('takes at most 4 extra models, no duplicates; an image, video or audio model turns multi-model off', () => {
    composer.extraModels = [];
    expect(['b', 'c', 'd', 'e'].map((id) => addExtraModel(id))).toEqual([true, true, true, true]);
    expect(addExtraModel('f')).toBe(false); // a 5th
    removeExtraModel('e');
    expect(addExtraModel('b')).toBe(false); // a duplicate
    expect(composer.extraModels).toEqual(['b', 'c', 'd']);
    applyModelChoice({ modality: 'text' });
    expect(composer.mode).toBe('chat');
    expect(composer.extraModels).toHaveLength(3);
    applyModelChoice({ modality: 'video' });
    expect(composer.mode).toBe('video');
    expect(composer.extraModels).toEqual([]);
  });
});

describe('message list rows', () => {
  it('puts the replies of one multi-model request in one row', () => {
    const rows = listRows([msg(1, 'user'), msg(2, 'assistant', { multiModelRequest: 'r' }), msg(3, 'assistant', { multiModelRequest: 'r' }), msg(4, 'user'), msg(5, 'assistant')]);
    expect(rows.map((r) => r.kind)).toEqual(['message', 'multi', 'message', 'message']);
    expect(rows[1]?.kind === 'multi' && rows[1].messages.map((m) => m.id)).toEqual([2, 3]);
  });

  it("marks where the latest request's history began when older messages were left out", () => {
    const messages = [msg(1, 'user'), msg(2, 'assistant'), msg(3, 'user', { hasError: true, status: 'error' }), msg(4, 'user'), msg(5, 'assistant'), msg(6, 'user', { contextOmitted: 2 })];
    const rows = listRows(messages);
    // Messages 1 and 2 were left out; message 3 failed, so it is never history: the request began at message 4.
    expect(rows.map((r) => (r.kind === 'omitted' ? `omitted ${r.count}` : r.key))).toEqual([1, 2, 3, 'omitted 2', 4, 5, 6]);
  });
});

describe('list rows after a streaming update', () => {
  const base = (): MessageView[] => [msg(1, 'user'), msg(2, 'assistant'), msg(3, 'user', { contextOmitted: 1 }), msg(4, 'assistant', { multiModelRequest: 'r' }), msg(5, 'assistant', { multiModelRequest: 'r', status: 'streaming', text: 'a' })];

  it('replaces only the changed message rows, keeping the others, and equals a fresh build', () => {
    const first = rowsOf(base());
    const next = base().map((m, i) => (i === 4 ? { ...m, text: 'ab' } : (first.messages[i] as MessageView)));
    const updated = updateRows(first, next);
    expect(updated.rows).toEqual(listRows(next));
    expect(updated.rows[0]).toBe(first.rows[0]);
    expect(updated.rows.at(-1)).not.toBe(first.rows.at(-1));
    // Nothing changed: the same rows.
    expect(updateRows(updated, [...next]).rows).toBe(updated.rows);
  });

  it('builds anew when a message is added, another takes its place, or its state moves the context marker', () => {
    const first = rowsOf(base());
    const done = base().map((m, i) => (i === 4 ? { ...m, status: 'done' as const } : (first.messages[i] as MessageView)));
    expect(updateRows(first, done).rows).toEqual(listRows(done));
    const added = [...base(), msg(6, 'user')];
    expect(updateRows(first, added).rows).toEqual(listRows(added));
    const other = base().map((m, i) => (i === 1 ? msg(9, 'assistant') : m));
    expect(updateRows(first, other).rows).toEqual(listRows(other));
  });
});
