/**
 * A page of sections (issue 16: Settings and the Wallet): a section list beside the section on wide screens, a
 * strip of tabs above it on a phone. Each section has its own address (`/settings/voice`), so the back button and a
 * reload keep it; an unknown or missing section shows the first. The list is a labelled `nav` of real links
 * (`aria-current="page"` on the one shown); the section is a region named by its heading, with a short description.
 */
import { useEffect, useId, type ReactNode } from 'react';
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

export function SectionedPage({ title, base, current, sections, className, children }: { title: string; base: string; current: string | null; sections: readonly PageSection[]; className?: string; children?: ReactNode }) {
  const active = sections.find((s) => s.id === current) ?? sections[0];
  useEffect(() => {
    document.title = active ? `${active.title} · ${title} · Parley` : `${title} · Parley`;
  }, [active, title]);
  return (
    <div className={`paged${className ? ` ${className}` : ''}`}>
      <div className="paged-head">
        <h1>{title}</h1>
        <nav className="paged-nav" aria-label={`${title} sections`}>
          <ul>
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
