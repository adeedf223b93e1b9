/**
 * Read model: the `instructions` table (spec 000 section 3), the user's saved instruction presets. The built-in
 * presets ('Standard', id 0, and 'Study Mode') are not rows: they live in code (src/worker/services/instructions.ts).
 */
import type { ProjectedEvent, Projection } from './projection';
import { put, remove, update } from './writes';
import type { Write } from './writes';

const NONE: Write[] = [];

export const instructionsProjection: Projection = {
  name: 'instructions',
  version: 1,
  tables: ['instructions'],
  apply(event: ProjectedEvent): Write[] {
    switch (event.type) {
      case 'instruction.created':
        return [put('instructions', event.payload.instruction)];
      case 'instruction.updated': {
        const p = event.payload;
        return [update('instructions', p.id, { name: p.name, instructions: p.instructions, updatedAt: p.at })];
      }
      case 'instruction.deleted':
        return [remove('instructions', event.payload.id)];
      default:
        // Only instruction events touch this table; the rest of the catalogue is someone else's.
        return NONE;
    }
  },
};
