/**
 * Asks once whether conversations should get generated titles (spec 001: autoGenerateTitle, asked once, recorded
 * in hasBeenAskedAboutAutoTitle). Shown after the first conversation exists; Yes also titles the open one.
 */
import type { ActionResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { matchRoute } from '../router';

export function AutoTitleQuestion() {
  const preferences = useQuery({ kind: 'preferences' });
  const conversations = useQuery({ kind: 'conversations' });
  if (!preferences || preferences.hasBeenAskedAboutAutoTitle || preferences.autoGenerateTitle) return null;
  if (!conversations || conversations.length === 0) return null;

  async function answer(yes: boolean) {
    await engine((api) => api.setPreferences(yes ? { autoGenerateTitle: true, hasBeenAskedAboutAutoTitle: true } : { hasBeenAskedAboutAutoTitle: true }));
    const route = matchRoute(location.pathname);
    if (yes && route.name === 'conversation' && route.slug !== 'new') await engine<ActionResult>((api) => api.generateTitle(route.slug));
  }

  return (
    <div className="notice auto-title" role="dialog" aria-label="Automatic titles" aria-describedby="auto-title-text">
      <div className="notice-title">Name conversations automatically?</div>
      <div className="notice-text" id="auto-title-text">
        A short title is written from the start of each conversation, replacing its first words.
      </div>
      <div className="notice-actions">
        <button type="button" onClick={() => void answer(true)}>
          Yes
        </button>
        <button type="button" onClick={() => void answer(false)}>
          No
        </button>
      </div>
    </div>
  );
}
