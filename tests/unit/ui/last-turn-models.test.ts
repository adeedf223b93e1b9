/** Multi-model restored on reopen (issue 16 item 5): the last turn's models, in their columns' order. */
import { describe, expect, it } from 'vitest';
import { lastTurnModels } from '../../../src/ui/composer-state';

const user = { role: 'user' as const, model: 'a' };
const reply = (model: string, multiModelRequest?: string) => ({ role: 'assistant' as const, model, ...(multiModelRequest ? { multiModelRequest } : {}) });

describe('lastTurnModels', () => {
  it('gives every model of a multi-model last turn in order, one model for a single turn, none before a reply', () => {
    expect(lastTurnModels([])).toEqual([]);
    expect(lastTurnModels([user])).toEqual([]);
    expect(lastTurnModels([user, reply('a')])).toEqual(['a']);
    expect(lastTurnModels([user, reply('a', 'r1'), reply('b', 'r1'), reply('c', 'r1')])).toEqual(['a', 'b', 'c']);
    // An earlier multi turn does not count once a single-model turn follows.
    expect(lastTurnModels([user, reply('a', 'r1'), reply('b', 'r1'), user, reply('b')])).toEqual(['b']);
    expect(lastTurnModels([user, reply('a'), user, reply('c', 'r2'), reply('a', 'r2')])).toEqual(['c', 'a']);
  });
});
