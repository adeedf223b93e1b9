/**
 * Study Mode as a toggle chip in the composer (issue 16): a button "Study Mode" with aria-pressed, on while the
 * conversation's instructions are the built-in Study Mode preset (the same choice as in the "System prompt" dialog).
 * Turning it on sets them (on a new conversation, for its first message); turning it off gives back the
 * instructions it replaced in this tab, else 'Standard'.
 *
 * Where it sits: off, among the secondary tools (behind "More tools" on a phone); on, in the tools row beside the
 * modes, so it shows while on at every width. Moving between the two remounts it: the focus follows it.
 */
import { useEffect, useRef } from 'react';
import { GraduationCap } from 'lucide-react';
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
export function useStudyMode(slug: string | null, instructions: string | undefined): { on: boolean; prompt: string | undefined; current: string } {
  const presets = useQuery({ kind: 'instructions' });
  const prompt = presets?.find((p) => p.id === STUDY_MODE_PRESET_ID)?.instructions;
  const current = useCurrentInstructions(slug, instructions);
  return { on: prompt !== undefined && current === prompt, prompt, current };
}

export function StudyModeToggle({ slug, instructions }: { slug: string | null; instructions: string | undefined }) {
  const { on, prompt, current } = useStudyMode(slug, instructions);
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
      {STUDY_MODE_LABEL}
    </button>
  );
}
