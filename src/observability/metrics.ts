/**
 * The spec's stage metrics, aggregated in the object that records them and drained as deltas by
 * the exporter (a Durable Object is one of many writers; a collector sums deltas across them).
 * Without an exporter they are only these counters in memory: no I/O, nothing to flush.
 */

export const STAGE_DURATION = "chatd_stage_duration_seconds";
export const MODEL_STAGE_DURATION = "chatd_model_stage_duration_seconds";
export const TTFT = "chatd_ttft_seconds";
export const TURN_OUTCOMES = "chatd_turn_outcomes_total";
export const STAGE_ANOMALIES = "chatd_stage_anomalies_total";

/** Seconds: from a fast commit to a long turn. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600] as const;

export type Labels = Record<string, string>;

export interface HistogramPoint {
  kind: "histogram";
  name: string;
  labels: Labels;
  count: number;
  sum: number;
  /** One count per bucket of DURATION_BUCKETS, plus the overflow bucket. */
  buckets: number[];
}

export interface CounterPoint {
  kind: "counter";
  name: string;
  labels: Labels;
  value: number;
}

export type MetricPoint = HistogramPoint | CounterPoint;

/** A stable key for a (name, labels) series: labels sorted by name. */
function seriesKey(name: string, labels: Labels): string {
  return `${name}${JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}

export class Metrics {
  #series = new Map<string, MetricPoint>();
  /** When the current delta window began. */
  #windowStartMs: number;

  constructor(private readonly now: () => number = Date.now) {
    this.#windowStartMs = now();
  }

  observe(name: string, labels: Labels, seconds: number): void {
    const key = seriesKey(name, labels);
    let point = this.#series.get(key);
    if (point === undefined || point.kind !== "histogram") {
      point = { kind: "histogram", name, labels, count: 0, sum: 0, buckets: new Array(DURATION_BUCKETS.length + 1).fill(0) };
      this.#series.set(key, point);
    }
    point.count++;
    point.sum += seconds;
    const i = DURATION_BUCKETS.findIndex((bound) => seconds <= bound);
    (point.buckets[i === -1 ? DURATION_BUCKETS.length : i] as number)++;
  }

  add(name: string, labels: Labels, n = 1): void {
    const key = seriesKey(name, labels);
    let point = this.#series.get(key);
    if (point === undefined || point.kind !== "counter") {
      point = { kind: "counter", name, labels, value: 0 };
      this.#series.set(key, point);
    }
    point.value += n;
  }

  /** Everything observed since the last drain, and that window; the next window starts now. */
  drain(): { startMs: number; endMs: number; points: MetricPoint[] } {
    const endMs = this.now();
    const window = { startMs: this.#windowStartMs, endMs, points: [...this.#series.values()] };
    this.#series = new Map();
    this.#windowStartMs = endMs;
    return window;
  }

  /** The current window without draining it (tests, the dev receiver). */
  peek(): MetricPoint[] {
    return [...this.#series.values()];
  }
}
