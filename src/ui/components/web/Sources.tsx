/** The numbered sources under a reply to a web search: [n] in the reply links to the same page. */
import type { WebSourceRecord } from '../../../events/model';
import { hostOf, safeHref } from './ScrapedChips';

export function Sources({ sources }: { sources: readonly WebSourceRecord[] }) {
  if (sources.length === 0) return null;
  return (
    <details className="sources" open>
      <summary>Sources ({sources.length})</summary>
      <ol aria-label="Sources">
        {sources.map((s, i) => {
          const href = safeHref(s.url);
          return (
            <li key={`${i}:${s.url}`} value={i + 1}>
              {href ? (
                <a href={href} target="_blank" rel="noopener noreferrer nofollow" title={s.snippet}>
                  {s.title}
                </a>
              ) : (
                <span>{s.title}</span>
              )}{' '}
              <span className="muted">{hostOf(s.url)}</span>
            </li>
          );
        })}
      </ol>
    </details>
  );
}
