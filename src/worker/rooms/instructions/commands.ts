/**
 * Saved instruction presets (spec 000 section 1): create, edit, delete. The built-ins ('Standard', id 0, and
 * 'Study Mode') live in code and cannot be changed (src/worker/rooms/instructions/system-message.ts).
 */
import type { ActionResult, InstructionHandlers, InstructionInput } from '../../../protocol/engine';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import { firstChars } from '../../../projections/projection';
import type { EngineCore } from '../../core';
import { INSTRUCTIONS_MAX_CHARS, isBuiltInPreset } from './system-message';

export const PRESET_NAME_MAX_CHARS = 100;
// Our own wording.
export const PRESET_NAME_REQUIRED = 'A preset needs a name';
export const PRESET_TEXT_REQUIRED = 'A preset needs instructions';
export const PRESET_BUILT_IN = 'Built-in presets cannot be changed';
export const PRESET_NOT_FOUND = 'Preset not found';

type Clean = { ok: true; name: string; instructions: string } | { ok: false; error: string };

function clean(input: InstructionInput): Clean {
  const name = firstChars(input.name.replace(/\s+/g, ' ').trim(), PRESET_NAME_MAX_CHARS);
  const instructions = firstChars(input.instructions.trim(), INSTRUCTIONS_MAX_CHARS);
  if (name === '') return { ok: false, error: PRESET_NAME_REQUIRED };
  if (instructions === '') return { ok: false, error: PRESET_TEXT_REQUIRED };
  return { ok: true, name, instructions };
}

export function instructionCommands(core: EngineCore): InstructionHandlers {
  async function append(event: NewEvent): Promise<boolean> {
    try {
      await core.append([event]);
      return true;
    } catch {
      return false;
    }
  }

  return {
    async createInstruction(input: InstructionInput): Promise<{ ok: true; id: number } | { ok: false; error: string }> {
      const c = clean(input);
      if (!c.ok) return c;
      await core.whenStarted();
      const now = Date.now();
      const instruction = { id: core.ids.next(now), name: c.name, instructions: c.instructions, createdAt: now, updatedAt: now };
      if (!(await append(makeEvent('instruction.created', { instruction }, crypto.randomUUID(), now)))) {
        return { ok: false, error: 'Local storage unavailable' };
      }
      return { ok: true, id: instruction.id };
    },

    async updateInstruction(id: number, input: InstructionInput): Promise<ActionResult> {
      if (isBuiltInPreset(id)) return { ok: false, error: PRESET_BUILT_IN };
      const c = clean(input);
      if (!c.ok) return c;
      await core.whenStarted();
      const row = await core.db.instructions.get(id);
      if (!row) return { ok: false, error: PRESET_NOT_FOUND };
      if (row.name === c.name && row.instructions === c.instructions) return { ok: true };
      const now = Date.now();
      const ok = await append(makeEvent('instruction.updated', { id, name: c.name, instructions: c.instructions, at: now }, crypto.randomUUID(), now));
      return ok ? { ok: true } : { ok: false, error: 'Local storage unavailable' };
    },

    async deleteInstruction(id: number): Promise<ActionResult> {
      if (isBuiltInPreset(id)) return { ok: false, error: PRESET_BUILT_IN };
      await core.whenStarted();
      if (!(await core.db.instructions.get(id))) return { ok: false, error: PRESET_NOT_FOUND };
      const now = Date.now();
      const ok = await append(makeEvent('instruction.deleted', { id, at: now }, crypto.randomUUID(), now));
      return ok ? { ok: true } : { ok: false, error: 'Local storage unavailable' };
    },
  };
}
