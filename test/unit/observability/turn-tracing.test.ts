/**
 * The turn span lifecycle (src/observability/turn-tracing.ts) on a fake clock: anchors,
 * takeover, tokens, emission after release, runner exit, and what the metrics observe.
 */
import { describe, expect, it } from "vitest";
import { Metrics, STAGE_ANOMALIES, STAGE_DURATION, TURN_OUTCOMES } from "../../../src/observability/metrics";
import type { SpanRecord } from "../../../src/observability/span";
import { StageTracing } from "../../../src/observability/stage-tracing";
import { NO_TURN, TurnTracing, type TurnSummary } from "../../../src/observability/turn-tracing";

function setup() {
  let now = 10_000;
  const spans: SpanRecord[] = [];
  const turns: TurnSummary[] = [];
  const metrics = new Metrics(() => now);
  const tracer = new StageTracing({ span: (r) => spans.push(r) }, metrics, () => now);
  const tracker = new TurnTracing("chat-1", tracer, (t) => turns.push(t));
  tracker.acquired({ chatKind: "root", takenOver: false });
  const live = new AbortController().signal;
  return {
    tracker,
    tracer,
    metrics,
    spans,
    turns,
    live,
    advance: (ms: number) => {
      now += ms;
    },
    at: () => now,
    count: (name: string, labels: Record<string, string>) =>
      metrics
        .peek()
        .filter((p) => p.name === name && Object.entries(labels).every(([k, v]) => p.labels[k] === v))
        .reduce((n, p) => n + (p.kind === "counter" ? p.value : p.count), 0),
  };
}

describe("TurnTracing", () => {
  it("opens the turn at the trigger with an acquisition stage, and emits it completed once released", () => {
    const t = setup();
    const trigger = t.at() - 250;
    const token = t.tracker.ensure(1, trigger, t.live);
    expect(token).not.toBe(NO_TURN);
    const acquisition = t.spans.find((s) => s.name === "acquisition")!;
    expect(acquisition).toMatchObject({ startMs: trigger, endMs: t.at() });
    t.advance(100);
    t.tracker.complete(token);
    t.tracker.settle(token);
    // Closed, but the task still holds it: not emitted yet.
    expect(t.turns).toHaveLength(0);
    t.tracker.release(1);
    expect(t.turns).toHaveLength(1);
    const root = t.spans.find((s) => s.name === "chat_turn")!;
    expect(root).toMatchObject({ startMs: trigger, endMs: trigger + 350, error: null, parentSpanId: null });
    expect(root.attributes).toMatchObject({ turn_outcome: "completed", chat_id: "chat-1", scope: "turn", chat_kind: "root" });
    expect(acquisition.parentSpanId).toBe(root.spanId);
    expect(t.count(STAGE_DURATION, { stage: "chat_turn" })).toBe(1);
    expect(t.count(TURN_OUTCOMES, { outcome: "completed", chat_kind: "root" })).toBe(1);
  });

  it("a takeover opens its first turn at now without acquisition; the next turn has one", () => {
    const t = setup();
    t.tracker.acquired({ chatKind: "subagent", takenOver: true });
    const first = t.tracker.ensure(1, t.at() - 5_000, t.live);
    const root = () => t.spans.filter((s) => s.name === "chat_turn").at(-1)!;
    t.tracker.complete(first);
    t.tracker.settle(first);
    t.tracker.release(1);
    expect(root().startMs).toBe(t.at());
    expect(t.spans.some((s) => s.name === "acquisition")).toBe(false);
    t.advance(1_000);
    const second = t.tracker.ensure(2, t.at() - 10, t.live);
    expect(t.spans.filter((s) => s.name === "acquisition")).toHaveLength(1);
    t.tracker.settle(second);
    t.tracker.release(2);
    t.tracker.exit();
    expect(root().attributes.chat_kind).toBe("subagent");
  });

  it("a trigger at or before the previous anchor opens at now and counts a stale_anchor anomaly", () => {
    const t = setup();
    const anchor = t.at() - 100;
    const first = t.tracker.ensure(1, anchor, t.live);
    t.tracker.complete(first);
    t.tracker.settle(first);
    t.tracker.release(1);
    t.advance(500);
    t.tracker.ensure(2, anchor, t.live);
    expect(t.count(STAGE_ANOMALIES, { reason: "stale_anchor" })).toBe(1);
    expect(t.spans.filter((s) => s.name === "acquisition")).toHaveLength(1);
  });

  it("a newer prompt closes the running turn as abandoned; the old task's late outcome reaches only its own turn", () => {
    const t = setup();
    const old = t.tracker.ensure(1, t.at() - 10, t.live);
    t.advance(50);
    const next = t.tracker.ensure(2, t.at() - 5, t.live);
    expect(next).not.toBe(old);
    // The old task is still unwinding: its turn waits for it.
    expect(t.turns).toHaveLength(0);
    t.tracker.settle(old);
    t.tracker.release(1);
    expect(t.turns.map((x) => x.outcome)).toEqual(["abandoned"]);
    t.tracker.complete(next);
    t.tracker.settle(next);
    t.tracker.release(2);
    expect(t.turns.map((x) => x.outcome)).toEqual(["abandoned", "completed"]);
    // Only the completed turn is observed on the histogram; both are counted.
    expect(t.count(STAGE_DURATION, { stage: "chat_turn" })).toBe(1);
    expect(t.count(TURN_OUTCOMES, {})).toBe(2);
  });

  it("the first outcome is kept, one after complete is ignored; an error turn ends in error", () => {
    const t = setup();
    const a = t.tracker.ensure(1, t.at(), t.live);
    t.tracker.invalidate(a, "error", new Error("provider down"));
    t.tracker.invalidate(a, "interrupted");
    t.tracker.complete(a);
    t.tracker.settle(a);
    t.tracker.release(1);
    t.advance(10);
    const b = t.tracker.ensure(2, t.at(), t.live);
    t.tracker.complete(b);
    t.tracker.invalidate(b, "error", "late");
    t.tracker.settle(b);
    t.tracker.release(2);
    expect(t.turns.map((x) => [x.outcome, x.error])).toEqual([
      ["error", "provider down"],
      ["completed", null],
    ]);
    expect(t.spans.filter((s) => s.name === "chat_turn").map((s) => s.error)).toEqual(["provider down", null]);
  });

  it("the interrupt task settles a turn no task holds at once; a cancelled task gets the zero token", () => {
    const t = setup();
    const gen = t.tracker.ensure(1, t.at(), t.live);
    t.tracker.release(1); // the generation task exited between steps
    const cancelled = new AbortController();
    cancelled.abort();
    expect(t.tracker.ensure(9, t.at(), cancelled.signal)).toBe(NO_TURN);
    expect(t.tracker.openToken(cancelled.signal)).toBe(NO_TURN);
    const open = t.tracker.openToken(t.live);
    expect(open).toBe(gen);
    t.tracker.invalidate(open, "interrupted");
    t.tracker.settle(open);
    expect(t.turns.map((x) => x.outcome)).toEqual(["interrupted"]);
    expect(t.spans.find((s) => s.name === "chat_turn")!.error).toBeNull();
  });

  it("runner exit emits what is left as abandoned, held or not, and stops listening", () => {
    const t = setup();
    t.tracker.ensure(1, t.at(), t.live);
    t.tracker.exit();
    expect(t.turns.map((x) => x.outcome)).toEqual(["abandoned"]);
    // A stage ending afterwards is not collected into a closed turn.
    t.tracer.start("commit", { identity: { scope: "turn", chatKind: "root" } }).end();
    expect(t.turns[0]!.stages.map((s) => s.name)).toEqual(["acquisition"]);
  });

  it("queue_wait is a standalone turn-scoped root from the queueing to now", () => {
    const t = setup();
    t.tracker.queueWait(t.at() - 700);
    const wait = t.spans.find((s) => s.name === "queue_wait")!;
    expect(wait).toMatchObject({ parentSpanId: null, startMs: t.at() - 700, endMs: t.at() });
    expect(wait.attributes).toMatchObject({ scope: "turn", chat_id: "chat-1" });
    expect(t.count(STAGE_DURATION, { stage: "queue_wait", scope: "turn" })).toBe(1);
  });
});
