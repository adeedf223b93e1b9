/** Settings of web search and scraping (spec 001 preferences linkupDepth and urlScrapingPreference). */
import { useId } from 'react';
import type { Preferences } from '../../../protocol/preferences';

export function WebSettings({ preferences, save }: { preferences: Preferences; save: (changes: Partial<Preferences>) => void }) {
  const scrapeId = useId();
  const depthId = useId();
  return (
    <>
      <div className="setting">
        <label htmlFor={scrapeId}>URL scraping</label>
        <select
          id={scrapeId}
          value={preferences.urlScrapingPreference}
          onChange={(e) => save({ urlScrapingPreference: e.target.value === 'always' ? 'always' : e.target.value === 'never' ? 'never' : 'ask' })}
        >
          <option value="ask">Ask before reading links in a message</option>
          <option value="always">Always read links in a message</option>
          <option value="never">Never read links</option>
        </select>
        <p className="setting-hint muted">Links in a message can be read for context ($0.001 a page); the model sees their text.</p>
      </div>
      <div className="setting">
        <label htmlFor={depthId}>Web search depth</label>
        <select id={depthId} value={preferences.linkupDepth} onChange={(e) => save({ linkupDepth: e.target.value === 'deep' ? 'deep' : 'standard' })}>
          <option value="standard">Standard ($0.006 a search)</option>
          <option value="deep">Deep, where the server offers it ($0.06 a search)</option>
        </select>
      </div>
    </>
  );
}
