/**
 * Per-rep records → summary figures → the Markdown tables printed on stdout.
 * Ratios and overheads are paired: each rep's service figure against the same rep's baseline.
 */
import type { BareTurnTiming } from "./bare-turn";
import type { ModelStreamTiming } from "./model-baseline";
import type { ServiceTurnTiming } from "./service-turn";

export interface RepRecord {
  rep: number;
  /** The order the rep ran its measurements in ("baseline-first", "service-first", or e.g. "model,chatd,bare"); rotated so drift hits all alike. */
  order: string;
  baseline: ModelStreamTiming;
  service: ServiceTurnTiming;
  /** The bare reference turn (bare/worker.js), unless --no-bare. */
  bare?: BareTurnTiming;
}

export interface Summary {
  n: number;
  median: number;
  p90: number;
  min: number;
  max: number;
}

/** Linear interpolation between closest ranks (numpy's default). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function summarize(values: (number | undefined)[]): Summary | undefined {
  const xs = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  return { n: xs.length, median: quantile(xs, 0.5), p90: quantile(xs, 0.9), min: xs[0]!, max: xs[xs.length - 1]! };
}

const minus = (a: number | undefined, b: number) => (a === undefined ? undefined : a - b);
const diff = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a - b);
const over = (a: number | undefined, b: number) => (a === undefined || b <= 0 ? undefined : a / b);

export interface Figures {
  timings: Record<string, Summary | undefined>;
  ratios: Record<string, Summary | undefined>;
  overheads: Record<string, Summary | undefined>;
  /** chatd against the bare turn, paired per rep (empty with --no-bare). */
  bare: Record<string, Summary | undefined>;
  /** Counted by the database proxy: independent of machine noise. */
  roundTrips: Record<string, Summary | undefined>;
}

export function computeFigures(reps: RepRecord[]): Figures {
  const col = (f: (r: RepRecord) => number | undefined) => summarize(reps.map(f));
  return {
    timings: {
      "baseline: model TTFT (call → first text delta)": col((r) => r.baseline.ttftMs),
      "baseline: model stream total": col((r) => r.baseline.totalMs),
      "service: POST /messages response": col((r) => r.service.postAckMs),
      "dev server floor: a request the Worker answers at once (401)": col((r) => r.service.devServerFloorMs),
      "service: POST /chats response (the rep's empty chat)": col((r) => r.service.createMs),
      "service: POST → first part frame": col((r) => r.service.firstPartMs),
      "service: POST → first text part frame": col((r) => r.service.firstTextMs),
      "service: POST → last part frame": col((r) => r.service.lastPartMs),
      "service: POST → status waiting (turn)": col((r) => r.service.turnMs),
      "traced: POST → model first byte": col((r) => r.service.modelFirstByteMs),
      "traced: POST → model last byte": col((r) => r.service.modelLastByteMs),
      "status poll round trip (turn-end resolution)": summarize(reps.flatMap((r) => r.service.pollRttMs)),
    },
    ratios: {
      "first part ÷ baseline TTFT": col((r) => over(r.service.firstPartMs, r.baseline.ttftMs)),
      "turn ÷ baseline total": col((r) => over(r.service.turnMs, r.baseline.totalMs)),
      "last part ÷ baseline total": col((r) => over(r.service.lastPartMs, r.baseline.totalMs)),
    },
    overheads: {
      "per-turn overhead: turn − baseline total": col((r) => r.service.turnMs - r.baseline.totalMs),
      "first-part overhead: first part − baseline TTFT": col((r) => minus(r.service.firstPartMs, r.baseline.ttftMs)),
      "turn tail: turn − last part": col((r) => (r.service.lastPartMs === undefined ? undefined : r.service.turnMs - r.service.lastPartMs)),
      "POST /messages response − dev server floor": col((r) => r.service.postAckMs - r.service.devServerFloorMs),
      "traced: POST → model request (before the model)": col((r) => r.service.modelRequestMs),
      "traced: model first byte → first part at client": col((r) => diff(r.service.firstPartMs, r.service.modelFirstByteMs)),
      "traced: model last byte → status waiting": col((r) => diff(r.service.turnMs, r.service.modelLastByteMs)),
    },
    bare: {
      "first part ÷ bare first part": col((r) =>
        r.bare?.firstPartMs === undefined ? undefined : over(r.service.firstPartMs, r.bare.firstPartMs),
      ),
      "POST /messages response ÷ bare POST response": col((r) => (r.bare ? over(r.service.postAckMs, r.bare.postAckMs) : undefined)),
      "turn ÷ bare turn": col((r) => (r.bare ? over(r.service.turnMs, r.bare.turnMs) : undefined)),
      "per-turn overhead ÷ bare's (each: turn − the model's stream total)": col((r) =>
        r.bare ? over(r.service.turnMs - r.baseline.totalMs, r.bare.turnMs - r.baseline.totalMs) : undefined,
      ),
      "first part − bare first part, ms": col((r) => (r.bare ? diff(r.service.firstPartMs, r.bare.firstPartMs) : undefined)),
      "POST response − bare POST response, ms": col((r) => (r.bare ? r.service.postAckMs - r.bare.postAckMs : undefined)),
      "turn − bare turn, ms": col((r) => (r.bare ? r.service.turnMs - r.bare.turnMs : undefined)),
      "bare: POST response, ms": col((r) => r.bare?.postAckMs),
      "bare: POST → first part, ms": col((r) => r.bare?.firstPartMs),
      "bare: POST → done frame (turn), ms": col((r) => r.bare?.turnMs),
      "bare: per-turn overhead (turn − the model's stream total), ms": col((r) =>
        r.bare ? r.bare.turnMs - r.baseline.totalMs : undefined,
      ),
    },
    roundTrips: {
      "POST /messages → response": col((r) => r.service.dbRoundTripsToAck),
      "traced: POST → model request": col((r) => r.service.dbRoundTripsToModel),
      "POST → status waiting (the whole turn)": col((r) => r.service.dbRoundTripsToWaiting),
      "connections opened, POST → waiting": col((r) => r.service.dbConnections),
      "POST /chats (empty) → response": col((r) => r.service.createRoundTrips),
      "connections opened by POST /chats": col((r) => r.service.createConnections),
    },
  };
}

export const ms = (v: number) => v.toFixed(1);
export const x = (v: number) => `${v.toFixed(2)}x`;
export const count = (v: number) => `${Math.round(v * 10) / 10}`;

/** The header of a table of summaries (summaryRow). */
export const SUMMARY_HEADER = ["| figure | n | median | p90 | min | max |", "|---|---|---|---|---|---|"];

/** One figure's row; none for a figure nobody measured (no parts socket, no --trace-model). */
export function summaryRow(name: string, s: Summary | undefined, fmt: (v: number) => string): string[] {
  return s ? [`| ${name} | ${s.n} | ${fmt(s.median)} | ${fmt(s.p90)} | ${fmt(s.min)} | ${fmt(s.max)} |`] : [];
}

export function markdown(figures: Figures, heading: string): string {
  const lines: string[] = [heading, "", ...SUMMARY_HEADER];
  const row = (name: string, s: Summary | undefined, fmt: (v: number) => string) => lines.push(...summaryRow(name, s, fmt));
  lines.push("| **ratios (paired per rep)** | | | | | |");
  for (const [name, s] of Object.entries(figures.ratios)) row(name, s, x);
  const bare = Object.entries(figures.bare).filter(([, s]) => s !== undefined);
  if (bare.length > 0) {
    lines.push("| **against the bare turn (paired per rep)** | | | | | |");
    for (const [name, s] of bare) row(name, s, name.endsWith("ms") ? ms : x);
  }
  lines.push("| **overheads, ms (paired per rep)** | | | | | |");
  for (const [name, s] of Object.entries(figures.overheads)) row(name, s, ms);
  lines.push("| **timings, ms** | | | | | |");
  for (const [name, s] of Object.entries(figures.timings)) row(name, s, ms);
  lines.push("| **database round trips (counted by the proxy)** | | | | | |");
  for (const [name, s] of Object.entries(figures.roundTrips)) row(name, s, count);
  return lines.join("\n") + "\n";
}
