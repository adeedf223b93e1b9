/**
 * Markdown of model output: GFM, $ math (KaTeX, fonts served from this origin), fenced code with a copy button.
 * Raw HTML in model output is not rendered (no rehype-raw), and links open outside the app: no script from a
 * model ever runs in the app's origin.
 */
import { useState } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import rehypeKatex from 'rehype-katex';
import 'katex/dist/katex.min.css';

function CodeBlock({ language, code }: { language: string; code: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="code-block">
      <div className="code-bar">
        <span>{language || 'text'}</span>
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(code).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            })
          }
        >
          {copied ? 'Copied' : 'Copy code'}
        </button>
      </div>
      <pre>
        <code className={language ? `language-${language}` : undefined}>{code}</code>
      </pre>
    </div>
  );
}

const components: Components = {
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
    return (
      <a href={url} target="_blank" rel="noopener noreferrer nofollow">
        {alt ? `Image: ${alt}` : 'Image link'}
      </a>
    );
  },
  a({ href, children }) {
    return (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    );
  },
};

export default function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkMath]} rehypePlugins={[rehypeKatex]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
