/**
 * $ math in a rendered Markdown tree: each math element (remark-math's `math-inline` and `math-display` code, and a
 * ```math block) becomes KaTeX's HTML, kept as a string on a `span.math-html` that the view sets as the span's
 * content (./to-react.tsx). This is rehype-katex's job, with one change: rehype-katex parses KaTeX's HTML back into
 * a tree, which needs an HTML parser in the parse worker (no DOM there) and makes the tree sent to the page many
 * times larger; a string needs neither. KaTeX escapes the TeX it prints and, with `trust` off (its default), makes
 * no links, classes or styles from the input, so the string is KaTeX's own markup only.
 */
import katex from 'katex';
import type { Element, ElementContent, Root } from 'hast';

export const MATH_HTML_CLASS = 'math-html';

function classes(node: Element): string[] {
  const c = node.properties.className;
  return Array.isArray(c) ? c.map(String) : [];
}

function textOf(node: Element): string {
  let out = '';
  const stack: ElementContent[] = [...node.children].reverse();
  while (stack.length > 0) {
    const n = stack.pop() as ElementContent;
    if (n.type === 'text') out += n.value;
    else if (n.type === 'element') for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as ElementContent);
  }
  return out;
}

/** KaTeX's HTML for the TeX, or null when KaTeX cannot render it at all. Same two tries as rehype-katex. */
export function katexHtml(tex: string, displayMode: boolean): string | null {
  try {
    return katex.renderToString(tex, { displayMode, throwOnError: true });
  } catch {
    try {
      return katex.renderToString(tex, { displayMode, throwOnError: false, strict: 'ignore' });
    } catch {
      return null;
    }
  }
}

function mathElement(tex: string, displayMode: boolean): Element {
  const html = katexHtml(tex, displayMode);
  if (html === null) {
    // What rehype-katex shows when KaTeX throws: the TeX, in the error colour.
    return { type: 'element', tagName: 'span', properties: { className: ['katex-error'], style: 'color:#cc0000' }, children: [{ type: 'text', value: tex }] };
  }
  return {
    type: 'element',
    tagName: 'span',
    properties: { className: displayMode ? [MATH_HTML_CLASS, `${MATH_HTML_CLASS}-display`] : [MATH_HTML_CLASS], dataKatex: html },
    children: [],
  };
}

/** Replaces the math elements of a rendered tree by KaTeX's HTML, in place. Iterative. */
export function renderMath(tree: Root): void {
  const stack: Array<Root | Element> = [tree];
  while (stack.length > 0) {
    const parent = stack.pop() as Root | Element;
    parent.children.forEach((child, i) => {
      if (child.type !== 'element') return;
      const own = classes(child);
      // A ```math block or remark-math's display math: <pre><code class="language-math ...">.
      const code = child.tagName === 'pre' && child.children.length === 1 && child.children[0]?.type === 'element' ? child.children[0] : null;
      if (code && code.tagName === 'code' && classes(code).includes('language-math')) {
        parent.children[i] = mathElement(textOf(code), true);
        return;
      }
      if (child.tagName === 'code' && (own.includes('math-inline') || own.includes('math-display'))) {
        parent.children[i] = mathElement(textOf(child), own.includes('math-display'));
        return;
      }
      stack.push(child);
    });
  }
}
