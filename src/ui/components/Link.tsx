import type { ReactNode } from 'react';
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
