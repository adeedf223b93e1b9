/**
 * Study Mode as a toggle chip in the composer (issue 16): a button "Study Mode" with aria-pressed, on while the
 * conversation's instructions are the built-in Study Mode preset (the same choice as in the "System prompt" dialog).
 * Turning it on sets them (on a new conversation, for its first message); turning it off gives back the
 * instructions it replaced in this tab, else 'Standard'.
 *
 * Where it sits: off, among the secondary tools (behind "More tools" on a phone); on, in the tools row just before
 * them, so it shows while on at every width (on a phone as its icon, the name kept for screen readers and in
 * the tooltip). Moving between the two remounts it: the focus follows it.
 */
import { useEffect, useRef } from 'react';
import { GraduationCap } from './first-page-icons';
import { useQuery } from '../engine';
import { saveInstructions, useCurrentInstructions } from './SystemPromptDialog';

/** The built-in Study Mode preset's id (src/worker/rooms/instructions/system-message.ts). */
const STUDY_MODE_PRESET_ID = -1;
export const STUDY_MODE_LABEL = 'Study Mode';

/** The instructions Study Mode replaced, by conversation ('' key: the new conversation), to give back when it ends. */
const replaced = new Map<string, string>();
/** The chip had the focus when it was toggled: the one mounted next takes it. */
let refocus = false;

/** Whether Study Mode is on for the conversation: its instructions are the Study Mode preset's. */
export interface StudyModeState {
  on: boolean;
  /** The Study Mode preset's text; undefined until the presets arrived. */
  prompt: string | undefined;
  /** The instructions in force now ('' = Standard). */
  current: string;
}

export function useStudyMode(slug: string | null, instructions: string | undefined): StudyModeState {
  const presets = useQuery({ kind: 'instructions' });
  const prompt = presets?.find((p) => p.id === STUDY_MODE_PRESET_ID)?.instructions;
  const current = useCurrentInstructions(slug, instructions);
  return { on: prompt !== undefined && current === prompt, prompt, current };
}

/** The chip; `study` comes from the composer's useStudyMode, so the chip mounted in its new place has it at once. */
export function StudyModeToggle({ slug, study }: { slug: string | null; study: StudyModeState }) {
  const { on, prompt, current } = study;
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!refocus) return;
    refocus = false;
    ref.current?.focus();
  }, []);
  const key = slug ?? '';
  return (
    <button
      ref={ref}
      type="button"
      className="study-mode-toggle"
      aria-pressed={on}
      disabled={prompt === undefined}
      title={on ? 'Study Mode is on: the model tutors with questions, hints and quizzes' : 'Tutor me with questions, hints and quizzes'}
      onClick={() => {
        if (prompt === undefined) return;
        refocus = document.activeElement === ref.current;
        if (on) {
          const back = replaced.get(key);
          replaced.delete(key);
          saveInstructions(slug, back !== undefined && back !== prompt ? back : '');
        } else {
          replaced.set(key, current);
          saveInstructions(slug, prompt);
        }
      }}
    >
      <GraduationCap size={14} strokeWidth={2} aria-hidden />
      <span className="study-mode-text">{STUDY_MODE_LABEL}</span>
    </button>
  );
}
