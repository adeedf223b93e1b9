/**
 * The composer's "Web search" switch (DESIGN UI contract) and its depth. Enabled only when the gateway has a search
 * provider; otherwise disabled, with the reason as its description and in its title. On, the next message searches
 * the web first and its reply cites the sources; the choice is the linkupEnabled preference (spec 001), and the
 * address's online / source parameters set it for this page (src/ui/composer-state.ts).
 */
import { useEffect, useId, useRef } from 'react';
import { useSnapshot } from 'valtio';
import { composer } from '../../composer-state';
import { engine, useQuery } from '../../engine';
import { web } from '../../web-state';
import { SEARCH_STATUS_UNKNOWN } from '../../../protocol/web-limits';

export function WebSearchSwitch() {
  const ids = useId();
  const state = useSnapshot(composer);
  const w = useSnapshot(web);
  const preferences = useQuery({ kind: 'preferences' });
  const seeded = useRef(false);

  useEffect(() => {
    if (web.status?.reason === SEARCH_STATUS_UNKNOWN || !web.status) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const ask = (wait: number) =>
        void engine((api) => api.webSearchStatus()).then((s) => {
          web.status = s;
          // The server could not be asked (offline, restarting): ask again, less and less often.
          if (s.reason === SEARCH_STATUS_UNKNOWN) timer = setTimeout(() => ask(Math.min(wait * 2, 60_000)), wait);
        });
      ask(2000);
      return () => clearTimeout(timer);
    }
  }, []);
  // The stored preference seeds the switch once per page load (an address parameter may have set it already).
  useEffect(() => {
    if (!preferences || seeded.current) return;
    seeded.current = true;
    if (preferences.linkupEnabled && !composer.webSearch) composer.webSearch = true;
  }, [preferences]);

  const status = w.status;
  const available = status?.available === true;
  const on = available && state.webSearch;
  const depth = preferences?.linkupDepth ?? 'standard';
  const deepOk = status?.depths.includes('deep') === true;
  const reason = status === null ? 'Checking whether web search is available…' : (status.reason ?? '');
  const price = status ? (depth === 'deep' && deepOk ? status.prices.deep : status.prices.standard) : '';

  const toggle = () => {
    const next = !composer.webSearch;
    composer.webSearch = next;
    void engine((api) => api.setPreferences({ linkupEnabled: next }));
  };

  return (
    <span className="web-search" title={available ? `Search the web before replying ($${Number(price)} a search)` : reason}>
      <button
        type="button"
        role="switch"
        aria-checked={on}
        aria-label="Web search"
        aria-describedby={available ? undefined : `${ids}-ws`}
        disabled={!available}
        className="switch"
        onClick={toggle}
      >
        <span aria-hidden="true" className="switch-knob" />
      </button>
      <span aria-hidden="true">Web search</span>
      {on && deepOk && (
        <select
          aria-label="Search depth"
          className="search-depth"
          value={depth}
          onChange={(e) => {
            // Read now, not when the engine call runs (the controlled select is back at the old value by then).
            const linkupDepth = e.target.value === 'deep' ? 'deep' : 'standard';
            void engine((api) => api.setPreferences({ linkupDepth }));
          }}
        >
          <option value="standard">Standard (${Number(status?.prices.standard ?? 0)})</option>
          <option value="deep">Deep (${Number(status?.prices.deep ?? 0)})</option>
        </select>
      )}
      {!available && (
        <span id={`${ids}-ws`} className="visually-hidden">
          {reason}
        </span>
      )}
    </span>
  );
}

