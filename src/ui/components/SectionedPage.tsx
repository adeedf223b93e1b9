/**
 * A page of sections (issue 16: Settings and the Wallet): a section list beside the section on wide screens, a
 * strip of tabs above it on a phone. Each section has its own address (`/settings/voice`), so the back button and a
 * reload keep it; an unknown or missing section shows the first. The list is a labelled `nav` of real links
 * (`aria-current="page"` on the one shown); the section is a region named by its heading, with a short description.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import type { Icon } from './IconButton';
import { Link } from './Link';

export interface PageSection {
  /** The last part of the address: `/settings/{id}`. */
  id: string;
  title: string;
  icon: Icon;
  description: string;
  content: ReactNode;
}

/** The width of the faded edge of the phone's tab strip (settings.css). */
const FADE_PX = 36;

/** Which edges of the tab strip cut a tab (`data-cut="left right"`): the stylesheet fades those, so a cut tab reads as "more this way". */
function markCutEdges(strip: HTMLElement): void {
  const cut = [strip.scrollLeft > 1 ? 'left' : '', strip.scrollLeft + strip.clientWidth < strip.scrollWidth - 1 ? 'right' : ''].filter(Boolean).join(' ');
  if (strip.dataset.cut !== cut) strip.dataset.cut = cut;
}

export function SectionedPage({ title, base, current, sections, className, children }: { title: string; base: string; current: string | null; sections: readonly PageSection[]; className?: string; children?: ReactNode }) {
  const active = sections.find((s) => s.id === current) ?? sections[0];
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    document.title = active ? `${active.title} · ${title} · Parley` : `${title} · Parley`;
  }, [active, title]);
  useEffect(() => {
    // On a phone the list is a strip that scrolls sideways: bring the current tab into reach (a deep link to the last).
    const strip = list.current;
    const tab = strip?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!strip) return;
    if (tab && strip.scrollWidth > strip.clientWidth) {
      const shown = strip.getBoundingClientRect();
      const box = tab.getBoundingClientRect();
      if (box.left < shown.left + FADE_PX || box.right > shown.right - FADE_PX) strip.scrollLeft += box.left - shown.left - FADE_PX;
    }
    markCutEdges(strip);
    const onResize = () => markCutEdges(strip);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, [active?.id]);
  return (
    <div className={`paged${className ? ` ${className}` : ''}`}>
      <div className="paged-head">
        <h1>{title}</h1>
        <nav className="paged-nav" aria-label={`${title} sections`}>
          <ul ref={list} onScroll={(e) => markCutEdges(e.currentTarget)}>
            {sections.map(({ id, title: label, icon: Glyph }) => (
              <li key={id}>
                <Link href={`${base}/${id}`} current={id === active?.id}>
                  <Glyph size={16} strokeWidth={2} aria-hidden />
                  <span>{label}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      {active && (
        <section key={active.id} className="paged-section" aria-labelledby={`section-${active.id}`} data-section={active.id}>
          <h2 id={`section-${active.id}`}>{active.title}</h2>
          <p className="paged-description">{active.description}</p>
          {active.content}
        </section>
      )}
      {children}
    </div>
  );
}

/** A titled group of rows inside a section: each row a label and its help on the left, the control on the right. */
export function SettingsGroup({ title, children }: { title?: string; children: ReactNode }) {
  const id = useId();
  return (
    <div className="settings-group" role={title ? 'group' : undefined} aria-labelledby={title ? id : undefined}>
      {title && (
        <h3 id={id} className="settings-group-title">
          {title}
        </h3>
      )}
      <div className="settings-rows">{children}</div>
    </div>
  );
}
