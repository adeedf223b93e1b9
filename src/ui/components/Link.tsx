import type { ComponentType, ReactNode } from 'react';
import { navigate } from '../router';

/** An in-app link: a real `<a href>` (open in a new tab works), navigating through the History API on a plain click. */
export function Link({ href, className, children, current }: { href: string; className?: string; children: ReactNode; current?: boolean }) {
  return (
    <a
      href={href}
      className={className}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

/** A row of the sidebar's page links: an icon and its label (the label is the link's name). */
export function PageLink({ href, current, icon: Icon, label, children }: { href: string; current: boolean; icon: ComponentType<{ size?: number; 'aria-hidden'?: boolean }>; label: string; children?: ReactNode }) {
  return (
    <Link href={href} current={current} className="page-link">
      <Icon size={16} aria-hidden />
      <span className="page-link-label">{label}</span>
      {children}
    </Link>
  );
}
