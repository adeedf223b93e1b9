/**
 * A fenced code block of model output: its language, a "Copy code" button, and syntax colours from highlight.js,
 * which is loaded (dynamic import, its own chunk) only when the first code block appears. Until it arrives, and
 * for a language it does not know, the code shows as plain text. The colours come from theme.css variables.
 */
import { memo, useEffect, useState } from 'react';
import type { HLJSApi } from 'highlight.js';
import { openInViewer } from '../tools-state';

let hljs: Promise<HLJSApi> | null = null;
/** highlight.js with its common languages, loaded once for the page. */
function loadHighlighter(): Promise<HLJSApi> {
  hljs ??= import('highlight.js/lib/common').then((m) => m.default);
  return hljs;
}

/** Quiet time before colouring: a block that is still growing is coloured once, when it stops. */
const HIGHLIGHT_SETTLE_MS = 200;
/** Longer code is left plain: colouring it would hold the main thread for too long. */
const HIGHLIGHT_MAX_CHARS = 100_000;

/**
 * highlight.js escapes the code it is given (its output is text plus its own span elements), so its HTML is safe
 * to set: nothing of the model's text becomes markup.
 */
function useHighlighted(code: string, language: string): string | null {
  // Kept with the code it colours: while new code waits for its colours, the plain text shows, never stale colours.
  const [state, setState] = useState<{ code: string; language: string; html: string } | null>(null);
  useEffect(() => {
    let live = true;
    if (code.length > HIGHLIGHT_MAX_CHARS) return;
    // Code still streaming in changes on every update: colour it once it has been still for a moment.
    const timer = setTimeout(() => {
      void loadHighlighter().then((h) => {
        if (!live) return;
        const lang = language && h.getLanguage(language) ? language : null;
        if (lang === null) return;
        setState({ code, language, html: h.highlight(code, { language: lang, ignoreIllegals: true }).value });
      });
    }, HIGHLIGHT_SETTLE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [code, language]);
  return state !== null && state.code === code && state.language === language ? state.html : null;
}

export const CodeBlock = memo(function CodeBlock({ language, code }: { language: string; code: string }) {
  const [copied, setCopied] = useState(false);
  const html = useHighlighted(code, language);
  return (
    <div className="code-block">
      <div className="code-bar">
        <span>{language || 'text'}</span>
        <span className="code-bar-buttons">
        {/* The code viewer (issue 8 item 5): runs Python, previews HTML. */}
        <button type="button" onClick={() => openInViewer(code, language)}>
          Open in viewer
        </button>
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
        </span>
      </div>
      {/* Focusable: a long line scrolls sideways, and the keyboard must reach it (WCAG 2.1.1). */}
      <pre tabIndex={0}>
        {html === null ? (
          <code className={language ? `language-${language}` : undefined}>{code}</code>
        ) : (
          <code className={`hljs language-${language}`} dangerouslySetInnerHTML={{ __html: html }} />
        )}
      </pre>
    </div>
  );
});
