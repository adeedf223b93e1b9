/**
 * The code viewer (DESIGN UI contract: region "Code viewer" with buttons "Run" and "Stop"; issue 8 item 5). It
 * holds the code of the block it was opened from, editable, and
 * - runs Python with Pyodide in a worker of its own (src/viewer/python-runner.ts): stdout, stderr, the last
 *   expression's value and tracebacks are shown; a time limit and Stop end runaway code by ending the worker;
 * - previews HTML in a sandboxed frame (./HtmlPreview.tsx): scripts run there, in an opaque origin, never the app's.
 * Loaded lazily (its chunk, and Pyodide only when Python is to run), so the conversation page does not carry it.
 * A run's output can go to the conversation's scratchpad.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { CodeLanguage } from '../../protocol/preferences';
import { LANGUAGE_LABEL, viewerLanguage } from '../../viewer/language';
import type { OutputStream } from '../../viewer/protocol';
import { DEFAULT_TIME_LIMIT_MS, PythonRunner, TIME_LIMITS_MS, type RunnerState, type RunOutcome } from '../../viewer/python-runner';
import { engine, useQuery } from '../engine';
import { addToScratchpad, tools } from '../tools-state';
import { HtmlPreview } from './HtmlPreview';

interface Chunk {
  stream: OutputStream | 'result';
  text: string;
}

/** One runner for the page: its worker lives while the viewer is open. */
let runner: PythonRunner | null = null;
function getRunner(): PythonRunner {
  runner ??= new PythonRunner(() => new Worker(new URL('../../viewer/python-worker.ts', import.meta.url), { type: 'module', name: 'parley-python' }));
  return runner;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${Math.max(1, Math.round(ms))} ms`;
}

/** The status line after a run. */
export function outcomeText(outcome: RunOutcome): string {
  switch (outcome.status) {
    case 'ok':
      return `Finished in ${seconds(outcome.ms)}`;
    case 'error':
      return `Raised an exception after ${seconds(outcome.ms)}`;
    case 'stopped':
      return 'Stopped';
    case 'timeout':
      return `Stopped: the time limit of ${seconds(outcome.limitMs)} was reached`;
    case 'crashed':
      return `Python stopped unexpectedly: ${outcome.error}`;
  }
}

function useRunnerState(): RunnerState {
  const [state, setState] = useState<RunnerState>(() => getRunner().getState());
  useEffect(() => getRunner().subscribe(setState), []);
  return state;
}

export default function CodeViewer({ slug }: { slug: string | null }) {
  const snap = useSnapshot(tools);
  const preferences = useQuery({ kind: 'preferences' });
  const [code, setCode] = useState(snap.viewer.code);
  const [chosen, setChosen] = useState<CodeLanguage | null>(null);
  const [timeLimit, setTimeLimit] = useState<number>(DEFAULT_TIME_LIMIT_MS);
  const [output, setOutput] = useState<Chunk[]>([]);
  const [status, setStatus] = useState('');
  const [preview, setPreview] = useState<{ html: string; key: number } | null>(null);
  const runner = useRunnerState();
  const outputRef = useRef<HTMLPreElement>(null);
  const language = chosen ?? viewerLanguage(snap.viewer.blockLanguage, preferences?.codeLanguage);

  // A block opened again (or another block): take its code, its language, and start afresh.
  useEffect(() => {
    setCode(tools.viewer.code);
    setChosen(null);
    setOutput([]);
    setStatus('');
    setPreview(null);
  }, [snap.viewer.opened]);

  // Python loads when the viewer opens on it (not with the page); the worker ends when the viewer closes.
  useEffect(() => {
    if (language === 'python') getRunner().warm();
  }, [language]);
  useEffect(() => () => getRunner().dispose(), []);

  // Keep the end of the output in view as it grows.
  useEffect(() => {
    const el = outputRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [output]);

  const running = language === 'html' ? preview !== null : runner.busy;

  async function run() {
    if (language === 'html') {
      setPreview((p) => ({ html: code, key: (p?.key ?? 0) + 1 }));
      setStatus('Preview shown');
      return;
    }
    setOutput([]);
    setStatus('');
    const outcome = await getRunner().run(code, {
      timeLimitMs: timeLimit,
      onOutput: (stream, text) => setOutput((o) => append(o, stream, text)),
    });
    if (outcome.status === 'ok' && outcome.result !== null) setOutput((o) => append(o, 'result', `${outcome.result}\n`));
    if (outcome.status === 'error' || outcome.status === 'crashed') setOutput((o) => append(o, 'stderr', outcome.error));
    setStatus(outcomeText(outcome));
    // Stop, the time limit or a crash ended the worker: have the next one loading while the user reads.
    if (outcome.status === 'stopped' || outcome.status === 'timeout' || outcome.status === 'crashed') getRunner().warm();
  }

  function stop() {
    if (language === 'html') {
      setPreview(null);
      setStatus('Preview closed');
      return;
    }
    getRunner().stop();
  }

  function chooseLanguage(next: CodeLanguage) {
    setChosen(next);
    setOutput([]);
    setStatus('');
    setPreview(null);
    if (preferences?.codeLanguage !== next) void engine((api) => api.setPreferences({ codeLanguage: next }));
  }

  const outputText = useMemo(() => output.map((c) => c.text).join(''), [output]);
  // While a run is on: loading or running. Otherwise the last run's outcome, else what the worker is doing.
  const live = language !== 'python' || !runner.busy ? null : runner.phase === 'ready' ? 'Running…' : 'Loading Python…';
  const idle =
    language !== 'python' ? '' : runner.phase === 'loading' ? 'Loading Python…' : runner.phase === 'ready' && runner.version ? `Python ready (Pyodide ${runner.version})` : '';

  return (
    <section className="tool-panel code-viewer" role="region" aria-label="Code viewer">
      <header className="tool-panel-header">
        <h2>Code viewer</h2>
        <button type="button" className="tool-close" onClick={() => (tools.panel = null)}>
          Close
        </button>
      </header>
      <div className="code-viewer-bar">
        <label>
          <span>Language</span>
          <select value={language} onChange={(e) => chooseLanguage(e.target.value as CodeLanguage)}>
            {(Object.keys(LANGUAGE_LABEL) as CodeLanguage[]).map((l) => (
              <option key={l} value={l}>
                {LANGUAGE_LABEL[l]}
              </option>
            ))}
          </select>
        </label>
        {language === 'python' && (
          <label>
            <span>Time limit</span>
            <select value={timeLimit} onChange={(e) => setTimeLimit(Number(e.target.value))}>
              {TIME_LIMITS_MS.map((ms) => (
                <option key={ms} value={ms}>
                  {seconds(ms)}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="code-viewer-buttons">
          <button type="button" className="primary" onClick={() => void run()} disabled={(language === 'python' && runner.busy) || code.trim() === ''}>
            Run
          </button>
          <button type="button" onClick={stop} disabled={!running}>
            Stop
          </button>
        </span>
      </div>
      <textarea
        className="code-viewer-code"
        aria-label="Code"
        aria-keyshortcuts="Control+Enter"
        spellCheck={false}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        onKeyDown={(e) => {
          // Ctrl+Enter (Cmd+Enter) runs, as in most code playgrounds.
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !(language === 'python' && runner.busy) && code.trim() !== '') {
            e.preventDefault();
            void run();
          }
        }}
      />
      <p className="code-viewer-status muted" role="status">
        {live ?? (status || idle)}
      </p>
      {language === 'python' ? (
        <div className="code-viewer-output-wrap">
          <pre className="code-viewer-output" role="log" aria-label="Output" ref={outputRef}>
            {output.map((c, i) => (
              <span key={i} className={`out-${c.stream}`}>
                {c.text}
              </span>
            ))}
          </pre>
        </div>
      ) : (
        preview && <HtmlPreview key={preview.key} html={preview.html} />
      )}
      <div className="code-viewer-keep">
        <button type="button" disabled={code.trim() === ''} onClick={() => void addToScratchpad(slug, code, 'code')}>
          Add code to scratchpad
        </button>
        {language === 'python' && (
          <button type="button" disabled={outputText.trim() === '' || runner.busy} onClick={() => void addToScratchpad(slug, outputText, 'output')}>
            Add output to scratchpad
          </button>
        )}
      </div>
    </section>
  );
}

/** Appends text to the output, joining it to the last chunk of the same stream. */
function append(chunks: Chunk[], stream: Chunk['stream'], text: string): Chunk[] {
  const last = chunks.at(-1);
  if (last && last.stream === stream) return [...chunks.slice(0, -1), { stream, text: last.text + text }];
  return [...chunks, { stream, text }];
}
