import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FORMATTING_PROMPT,
  fillPlaceholders,
  presetList,
  STANDARD_PRESET_ID,
  STUDY_MODE_PROMPT,
  systemMessageFor,
} from '../../../src/worker/rooms/instructions/system-message';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('instruction presets', () => {
  it("always lists 'Standard' with id 0, sorted by name with the user's presets", () => {
    const list = presetList([
      { id: 5, name: 'zeta', instructions: 'z', createdAt: 1, updatedAt: 1 },
      { id: 6, name: 'Alpha', instructions: 'a', createdAt: 1, updatedAt: 1 },
    ]);
    expect(list.map((p) => p.name)).toEqual(['Alpha', 'Standard', 'Study Mode', 'zeta']);
    expect(list.find((p) => p.name === 'Standard')?.id).toBe(STANDARD_PRESET_ID);
    expect(presetList([]).map((p) => p.id)).toContain(0);
  });

  it('a stored row cannot shadow a built-in id', () => {
    const list = presetList([{ id: 0, name: 'Hijack', instructions: 'x', createdAt: 1, updatedAt: 1 }]);
    expect(list.filter((p) => p.id === 0)).toHaveLength(1);
    expect(list.find((p) => p.id === 0)?.name).toBe('Standard');
  });

  it('the default prompt demands Markdown, $ math, fenced code and no leading heading; Study Mode tutors', () => {
    expect(DEFAULT_FORMATTING_PROMPT).toMatch(/Markdown only/);
    expect(DEFAULT_FORMATTING_PROMPT).toMatch(/\$ delimiters/);
    expect(DEFAULT_FORMATTING_PROMPT).toMatch(/fenced code blocks/);
    expect(DEFAULT_FORMATTING_PROMPT).toMatch(/not begin an answer with a heading/);
    expect(STUDY_MODE_PROMPT).toMatch(/guiding questions/);
    expect(STUDY_MODE_PROMPT).toMatch(/hint/);
    expect(STUDY_MODE_PROMPT).toMatch(/quiz/);
  });
});

describe('systemMessageFor', () => {
  it('fills the date and model placeholders, every occurrence', () => {
    expect(fillPlaceholders('{{modelName}} on {{currentDate}}; again {{modelName}}', 'GPT', NOW)).toBe('GPT on 2026-11-23; again GPT');
  });

  it("uses the conversation's own instructions when set, else the default formatting prompt", () => {
    expect(systemMessageFor({ instructions: 'Be brief, {{modelName}}.' }, 'Offline', NOW)).toEqual({ role: 'system', content: 'Be brief, Offline.' });
    const fallback = systemMessageFor({ instructions: '   ' }, 'Offline', NOW);
    expect(fallback.role).toBe('system');
    expect(fallback.content).toContain('You are Offline');
    expect(fallback.content).toContain('2026-11-23');
    expect(fallback.content).not.toContain('{{');
    expect(systemMessageFor(null, 'M', NOW).content).toBe(fillPlaceholders(DEFAULT_FORMATTING_PROMPT, 'M', NOW));
  });
});
