/** One benchmark figure with the baseline it is compared to, both measured in the same run. */
export interface BenchResult {
  name: string;
  /** What the figure is, e.g. 'ms per 1000 events' or 'events/s'. */
  unit: string;
  value: number;
  /** Baseline in the same unit, measured in the same run; null when the target is absolute. */
  baseline: number | null;
  /** value / baseline when there is a baseline. */
  ratio: number | null;
  /** Human text of the target, e.g. 'ratio <= 1.15'. */
  target: string;
  pass: boolean;
  notes?: string;
}

export type Bench = () => Promise<BenchResult[]>;
