/**
 * A rendered Markdown tree (hast, from ./pipeline.ts, made here or in the parse worker) to React elements: the
 * render half of react-markdown (hast-util-to-jsx-runtime), with Parley's components. Linear in the tree, and the
 * tree is at most a few dozen levels deep (src/protocol/markdown-depth.ts), so this never overflows the stack.
 */
import type { ReactElement } from 'react';
import type { Root } from 'hast';
import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { CodeBlock } from '../components/CodeBlock';
import { MATH_HTML_CLASS } from './math';

const components: Partial<Components> = {
  pre({ children }) {
    return <>{children}</>;
  },
  code({ className, children }) {
    const text = String(children ?? '');
    const match = /language-([\w+-]+)/.exec(className ?? '');
    const block = match !== null || text.includes('\n');
    if (!block) return <code className="inline-code">{children}</code>;
    return <CodeBlock language={match?.[1] ?? ''} code={text.replace(/\n$/, '')} />;
  },
  // Images in model text would be fetched from any host the model names (a tracking pixel at best, and the CSP
  // blocks them anyway): show them as links instead, except data: images, which are inline.
  img({ src, alt }) {
    const url = typeof src === 'string' ? src : '';
    if (url.startsWith('data:image/')) return <img src={url} alt={alt ?? ''} className="inline-image" />;
    if (url === '') return <span className="link-removed">{alt ? `Image: ${alt}` : 'Image'}</span>;
    return (
      <a href={url} target="_blank" rel="noopener noreferrer nofollow">
        {alt ? `Image: ${alt}` : 'Image link'}
      </a>
    );
  },
  a({ href, children, className }) {
    // An address the pipeline emptied (javascript:, data:, vbscript: ...) leaves the text, not a link to this page.
    if (!href) return <span className={className ? `${className} link-removed` : 'link-removed'}>{children}</span>;
    return (
      <a href={href} className={className} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    );
  },
  span(props) {
    // Math: KaTeX's own HTML (./math.ts), which only the pipeline makes; Markdown text cannot make this span.
    const html = (props as { 'data-katex'?: unknown })['data-katex'];
    if (typeof html === 'string' && props.className?.split(' ').includes(MATH_HTML_CLASS)) {
      return <span className={props.className} dangerouslySetInnerHTML={{ __html: html }} />;
    }
    return <span {...props} />;
  },
};

export function hastToReact(tree: Root): ReactElement {
  return toJsxRuntime(tree, { Fragment, jsx, jsxs, components, ignoreInvalidStyle: true, passKeys: true }) as ReactElement;
}
