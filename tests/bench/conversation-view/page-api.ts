/** What the conversation-view bench page exposes to the Node side (window.parleyView). */
export interface OpenResult {
  /** From the start of rendering the list to the first frame painted with it (ms). */
  firstPaintMs: number;
  /** Message articles in the DOM (the virtualised list renders only those in view, plus a few). */
  articles: number;
  /** A structured clone of the messages (what crossing from the engine costs, serialising and reading back; ms). */
  cloneMs: number;
}

export interface StreamConfig {
  /** Finished messages already in the conversation. */
  history: number;
  tokensPerSecond: number;
  durationMs: number;
  /** Publish period of the engine's live text (spec 000 section 9: 150 ms). */
  publishMs: number;
}

export interface StreamResult {
  ticks: number;
  /** Characters of the streamed reply at the end. */
  chars: number;
  /** Long tasks (> 50 ms) observed on the main thread during the stream, with their durations. */
  longTasks: number[];
}

export interface ViewBenchApi {
  /** Warm up: load the lazy Markdown chunk and highlight.js, render once. */
  warm(): Promise<void>;
  open(messages: number, run: number): Promise<OpenResult>;
  /** Mounts the conversation (history, a prompt and a pending reply) to stream into. */
  prepare(history: number): Promise<void>;
  stream(config: StreamConfig): Promise<StreamResult>;
  clear(): void;
}

declare global {
  interface Window {
    parleyView?: ViewBenchApi;
  }
}
