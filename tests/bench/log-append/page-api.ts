/** The contract between the bench page (main.ts, runs in Chromium) and the Node driver (log-append.bench.ts). */
export interface AppendRunConfig {
  /**
   * 'app': appendEvents(message.added batch).
   * 'raw-log': raw Dexie bulkPut of the same rows the append stores (the event rows, the message rows, the
   *   conversation row), one Dexie transaction per batch: the baseline of the target.
   * 'raw': messages.bulkPut of the message rows only (what a store without a log would write).
   */
  mode: 'app' | 'raw-log' | 'raw';
  messages: number;
  batchSize: number;
  /** Distinguishes databases between runs. */
  label: string;
  seed: number;
  /**
   * Diagnostic variants (BENCH_PROBE): 'dexie-app' appendEvents through the Dexie executor; 'native-raw' the rows
   * with a native transaction; 'native-events+messages' native adds of the events plus puts of the rows;
   * 'native-floor' that plus one blind conversation put (the least the log-and-read-model write can cost).
   */
  probe?: 'dexie-app' | 'native-raw' | 'native-events+messages' | 'native-floor';
}

export interface AppendRunResult {
  mode: AppendRunConfig['mode'];
  ms: number;
  messages: number;
  batches: number;
  /** Rows in the messages table afterwards (sanity check). */
  stored: number;
}

export interface BenchPageApi {
  run(config: AppendRunConfig): Promise<AppendRunResult>;
}

declare global {
  interface Window {
    parleyBench?: BenchPageApi;
  }
}
