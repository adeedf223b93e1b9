/**
 * Bench page: the app's message list (MessageList, MessageItem, Markdown, styles) with one reply, without the
 * engine, while a PerformanceObserver('longtask') records the main thread's long tasks. `arrive` streams the reply
 * as the engine publishes it (its text every 150 ms, cloned as postMessage delivers it) and then finishes it;
 * `open` mounts it finished, as reopening the conversation does (the Node side reloads the page first, so nothing
 * is cached).
 */
import { createRoot, type Root } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { MessageList } from '../../../src/ui/components/MessageList';
import type { ModelInfo } from '../../../src/protocol/api';
import type { MessageView } from '../../../src/protocol/engine';
import '../../../src/ui/styles.css';
import './page.css';

export interface RunResult {
  longest: number;
  longTasks: number;
  /** How the reply ended up: formatted, plain (with the note), or crashed (the list is gone). */
  format: 'formatted' | 'plain' | 'crashed' | 'timeout';
  ms: number;
}

export interface HostileBenchApi {
  /** Loads the lazy Markdown chunk and the parse worker, and warms the JIT, on texts unlike the measured ones. */
  warm(): Promise<void>;
  run(text: string, mode: 'arrive' | 'open', id: number): Promise<RunResult>;
}

declare global {
  interface Window {
    parleyHostile?: HostileBenchApi;
  }
}

const MODELS: ModelInfo[] = [
  { id: 'bench-model', name: 'Bench model', modality: 'text', provider: 'offline', pricing: { input: '0', output: '0' }, capabilities: [], free: true, offline: true },
];
const T0 = 1_700_000_000_000;

function message(id: number, role: 'user' | 'assistant', text: string, status: MessageView['status']): MessageView {
  return {
    id,
    conversationSlug: 'bench',
    timestamp: T0 + id,
    role,
    prompt: text,
    text,
    model: 'bench-model',
    status,
    cost: 0,
    paymentSource: 'USD',
    parentMessageId: role === 'assistant' ? id - 1 : null,
    alternativeGroup: null,
    branchIndex: 0,
    isActiveBranch: true,
    branchDepth: role === 'assistant' ? 1 : 0,
    updatedAt: T0 + id,
  };
}

const container = document.getElementById('root') as HTMLElement;
let root: Root | null = null;

function render(messages: MessageView[]): void {
  root ??= createRoot(container);
  root.render(<MessageList messages={messages} models={MODELS} />);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The reply's state once rendered: formatted or plain; null while it is still being parsed or laid out. */
function settled(): RunResult['format'] | null {
  if (!container.querySelector('.messages')) return 'crashed';
  const reply = container.querySelector('article[data-role="assistant"]');
  if (!reply) return null;
  if (reply.querySelector('.unformatted')) return 'plain';
  const markdown = reply.querySelector('.markdown');
  if (!markdown || markdown.getAttribute('data-format') === 'parsing') return null;
  return markdown.getAttribute('data-format') === 'plain' ? 'plain' : 'formatted';
}

const WARM = ['# Warm', '', 'Some **bold** and `code` and $x$.', '', '- a\n- b', '', '```js\nlet a = 1;\n```', '', 'More words. '.repeat(400)].join('\n');

const api: HostileBenchApi = {
  async warm() {
    flushSync(() => render([message(1, 'user', 'Warm up', 'done'), message(2, 'assistant', WARM, 'done')]));
    const until = performance.now() + 30_000;
    while (settled() !== 'formatted' && performance.now() < until) await sleep(50);
    root?.unmount();
    root = null;
  },
  async run(text, mode, id) {
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
    const prompt = message(id, 'user', 'Reply, please.', 'done');
    const t0 = performance.now();
    try {
      if (mode === 'arrive') {
        flushSync(() => render([prompt, message(id + 1, 'assistant', '', 'pending')]));
        // About 40 publishes, 150 ms apart, as the engine sends a streaming reply's text.
        const step = Math.max(200, Math.ceil(text.length / 40));
        for (let at = step; at < text.length; at += step) {
          await sleep(150);
          render(structuredClone([prompt, message(id + 1, 'assistant', text.slice(0, at), 'streaming')]));
        }
        await sleep(150);
      }
      render(structuredClone([prompt, message(id + 1, 'assistant', text, 'done')]));
      let format: RunResult['format'] | null = null;
      const until = performance.now() + 60_000;
      while (format === null && performance.now() < until) {
        await sleep(50);
        format = settled();
      }
      // Plain text lays out in pieces after it shows: let it finish.
      await sleep(1000);
      return { longest: Math.max(0, ...longTasks), longTasks: longTasks.length, format: format ?? 'timeout', ms: performance.now() - t0 };
    } finally {
      observer.disconnect();
    }
  },
};

window.addEventListener('error', () => undefined);
window.parleyHostile = api;
