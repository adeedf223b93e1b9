/**
 * Bench page: the app's conversation view (MessageList with MessageItem, Markdown, styles) rendered with synthetic
 * conversations, without the engine. It measures the view's part of opening a conversation and of a streaming
 * reply: the messages arrive as the engine's conversationUpdates query delivers them, structured-cloned as
 * Comlink's postMessage does: the whole view once, then on each publish only the streaming reply's text, folded into
 * the view with the app's own applyConversationUpdate.
 */
import { createRoot, type Root } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { MessageList } from '../../../src/ui/components/MessageList';
import type { ModelInfo } from '../../../src/protocol/api';
import type { ConversationUpdate, ConversationView, MessageView } from '../../../src/protocol/engine';
import { applyConversationUpdate } from '../../../src/protocol/conversation-updates';
import '../../../src/ui/styles.css';
import './page.css';
import type { OpenResult, StreamConfig, StreamResult, ViewBenchApi } from './page-api';

const MODELS: ModelInfo[] = [
  { id: 'bench-model', name: 'Bench model', modality: 'text', provider: 'offline', pricing: { input: '0', output: '0' }, capabilities: [], free: true, offline: true },
];
const T0 = 1_700_000_000_000;

const PARAGRAPHS = [
  'Here is what I found. The **first** point is that caching matters, and the *second* is that `measure` beats guessing.',
  'A list helps:\n\n- one item with `code`\n- two items, with a [link](https://example.com)\n- three items',
  '| column | value |\n| --- | --- |\n| a | 1 |\n| b | 2 |',
  '```ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```',
  'Math too: $E = mc^2$, and a longer sentence that wraps over more than one line of the message column to give it height.',
];

function message(id: number, run: number, slug: string, role: 'user' | 'assistant', text: string, status: MessageView['status'] = 'done'): MessageView {
  return {
    id,
    conversationSlug: slug,
    timestamp: T0 + id * 1000,
    role,
    prompt: text,
    text,
    model: 'bench-model',
    status,
    cost: role === 'assistant' ? 0.000123 : 0,
    paymentSource: 'USD',
    outputTokens: role === 'assistant' ? 120 : undefined,
    parentMessageId: id > 1 ? id - 1 : null,
    alternativeGroup: null,
    branchIndex: 0,
    isActiveBranch: true,
    branchDepth: id - 1,
    // Distinct per run: every run parses its messages afresh (no help from an earlier run's cache).
    updatedAt: T0 + id * 1000 + run,
  };
}

function conversation(count: number, run: number, slug = 'bench'): MessageView[] {
  const out: MessageView[] = [];
  for (let i = 1; i <= count; i++) {
    const user = i % 2 === 1;
    const text = user ? `Question ${i}: how does part ${i} work?` : `${PARAGRAPHS[i % PARAGRAPHS.length]}\n\n${PARAGRAPHS[(i + 2) % PARAGRAPHS.length]}`;
    out.push(message(i, run, slug, user ? 'user' : 'assistant', text));
  }
  return out;
}

const container = document.getElementById('root') as HTMLElement;
let root: Root | null = null;
let prepared: { history: number; view: ConversationView } | null = null;

function mount(messages: MessageView[]): void {
  root?.unmount();
  root = createRoot(container);
  flushSync(() => root?.render(<MessageList messages={messages} models={MODELS} />));
}

/** Resolves just after the next frame is painted (rAF runs before paint; a message posted from it runs after). */
function nextPaint(): Promise<number> {
  return new Promise((resolve) =>
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => resolve(performance.now());
      ch.port2.postMessage(null);
    }),
  );
}

const api: ViewBenchApi = {
  async warm() {
    mount(conversation(40, -1));
    // The lazy Markdown chunk and highlight.js load on first use: wait until a code block has colours.
    const until = performance.now() + 10_000;
    while (!container.querySelector('.hljs-keyword') && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
    api.clear();
  },
  async open(count: number, run: number): Promise<OpenResult> {
    // The data arrives as the live query delivers it: cloned (that cost is the engine boundary's, outside t).
    const source = conversation(count, run);
    const c0 = performance.now();
    const messages = structuredClone(source);
    const cloneMs = performance.now() - c0;
    // The synthetic data and its clone leave garbage that is no part of the view's work: collected before the clock.
    (globalThis as { gc?: () => void }).gc?.();
    await nextPaint();
    const t0 = performance.now();
    mount(messages);
    const t1 = await nextPaint();
    return { firstPaintMs: t1 - t0, articles: container.querySelectorAll('article').length, cloneMs };
  },
  async prepare(historyCount: number) {
    const messages = [...conversation(historyCount, 0, 'stream'), message(historyCount + 1, 0, 'stream', 'user', 'Write me a long answer, please.'), message(historyCount + 2, 0, 'stream', 'assistant', '', 'pending')];
    const first: ConversationUpdate = { kind: 'view', view: { conversation: { id: 1, uuid: 'u', slug: 'stream', name: 'Stream', createdAt: T0, updatedAt: T0, latestMessage: '', isMediaOnly: false }, messages, pending: true, queue: [] } };
    const view = applyConversationUpdate(undefined, structuredClone(first)) as ConversationView;
    prepared = { history: historyCount, view };
    mount(view.messages);
    await nextPaint();
  },
  async stream(config: StreamConfig): Promise<StreamResult> {
    if (!prepared || prepared.history !== config.history) throw new Error('prepare(history) first');
    let view = prepared.view;
    const replyId = config.history + 2;
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
    const tokensPerTick = (config.tokensPerSecond * config.publishMs) / 1000;
    let text = '';
    let ticks = 0;
    const start = performance.now();
    let token = 0;
    while (performance.now() - start < config.durationMs) {
      await new Promise((r) => setTimeout(r, config.publishMs));
      for (let i = 0; i < tokensPerTick; i++, token++) {
        // Markdown-ish tokens: words, with a paragraph break and now and then a list item or code span.
        text += token % 97 === 96 ? '\n\n' : token % 41 === 40 ? ' `code`' : token % 53 === 52 ? '\n- item' : ` word${token}`;
      }
      ticks++;
      // One publish of the live query: the reply's text, cloned as postMessage delivers it, folded into the view.
      const update: ConversationUpdate = { kind: 'live', messages: [{ id: replyId, text, thinking: '', status: 'streaming' }] };
      view = applyConversationUpdate(view, structuredClone(update)) as ConversationView;
      root?.render(<MessageList messages={view.messages} models={MODELS} />);
    }
    await nextPaint();
    observer.disconnect();
    return { ticks, chars: text.length, longTasks };
  },
  clear() {
    root?.unmount();
    root = null;
  },
};

window.parleyView = api;
