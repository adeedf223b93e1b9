/**
 * Read model: the `instructions` table (spec 000 section 3), the user's saved instruction presets. The built-in
 * presets ('Standard', id 0, and 'Study Mode') are not rows: they live in code (src/worker/rooms/instructions/system-message.ts).
 */
import { defineProjection } from './projection';
import { put, remove, update } from './writes';

export const instructionsProjection = defineProjection({
  name: 'instructions',
  version: 1,
  tables: ['instructions'],
  materializers: {
    'instruction.created': (p) => [put('instructions', p.instruction)],
    'instruction.updated': (p) => [update('instructions', p.id, { name: p.name, instructions: p.instructions, updatedAt: p.at })],
    'instruction.deleted': (p) => [remove('instructions', p.id)],
  },
});
