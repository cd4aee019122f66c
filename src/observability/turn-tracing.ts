/**
 * The spec's turn span lifecycle ("Lifecycle tracing" > "Turn span lifecycle"), one per
 * runner. A turn is one prompt: generation tasks join it with `ensure` (opening it, backdated to
 * the trigger with an acquisition stage, when none is current), the finishing step marks it
 * `complete`, a committed FinishError or the interrupt task `invalidate`s it, `settle` closes a
 * finished or invalidated turn at the end of the step, and the span is emitted once every task
 * that joined it has been released. Runner exit closes and emits what is left, as abandoned
 * unless it finished. Tokens tie each task to the turn it joined, so a task that was replaced
 * cannot close its successor's turn.
 */
import { errorText } from "../log/log";
import { STAGE_ANOMALIES, TURN_OUTCOMES } from "./metrics";
import type { SpanContext, SpanRecord } from "./span";
import type { ChatKind, Stage, StageIdentity, StageTracing } from "./stage-tracing";

export type TurnOutcome = "completed" | "error" | "interrupted" | "abandoned";

/** A turn as GET /chats/{chat}/turns shows it: its span and the stages inside it. */
export interface TurnSummary {
  trace_id: string;
  started_at: string;
  ended_at: string;
  duration_ms: number;
  outcome: TurnOutcome;
  error: string | null;
  stages: {
    name: string;
    span_id: string;
    parent_span_id: string | null;
    offset_ms: number;
    duration_ms: number;
    error: string | null;
    attributes: SpanRecord["attributes"];
  }[];
}

/** The zero token: no turn matches it. */
export const NO_TURN = 0;
/** A turn keeps at most this many stages for its summary (the spans themselves are all exported). */
const MAX_SUMMARY_STAGES = 200;

interface Turn {
  token: number;
  span: Stage;
  /** The trigger the turn was opened for (null: none). */
  trigger: number | null;
  holders: Set<number>;
  finished: boolean;
  invalidated: { outcome: TurnOutcome; error: unknown } | null;
  closedAtMs: number | null;
  stages: SpanRecord[];
}

export class TurnTracing {
  #current: Turn | null = null;
  /** Turns not emitted yet, by token. */
  #turns = new Map<number, Turn>();
  #nextToken = 1;
  #lastAnchor: number | null = null;
  #takenOver = false;
  #chatKind: ChatKind = "";
  readonly #unsubscribe: () => void;

  constructor(
    /** On the standalone roots (chat_turn, queue_wait), so a chat's turns can be found. */
    private readonly chatId: string,
    private readonly tracer: StageTracing,
    /** Every emitted turn (the chat's turn log). */
    private readonly emitted: (summary: TurnSummary) => void = () => {},
  ) {
    this.#unsubscribe = tracer.onSpan((record) => this.#collect(record));
  }

  get identity(): StageIdentity {
    return { scope: "turn", chatKind: this.#chatKind };
  }

  /** What acquisition said: the chat's kind, and whether a stale owner's chat was taken over. */
  acquired(info: { chatKind: ChatKind; takenOver: boolean }): void {
    this.#chatKind = info.chatKind;
    this.#takenOver = info.takenOver;
  }

  /** Joins (or opens) the turn for `trigger`; NO_TURN once the task is cancelled. */
  ensure(taskId: number, trigger: number | null, signal: AbortSignal): number {
    if (signal.aborted) return NO_TURN;
    let turn = this.#current;
    if (turn !== null) {
      const newer = trigger !== null && (turn.trigger === null || trigger > turn.trigger);
      // A newer prompt replaces the turn; so does the next prompt after a finished one.
      if (newer || turn.finished || turn.invalidated !== null) {
        this.#close(turn);
        turn = null;
      }
    }
    turn ??= this.#open(trigger);
    turn.holders.add(taskId);
    return turn.token;
  }

  /** The interrupt task's handle on whatever turn is open. */
  openToken(signal: AbortSignal): number {
    if (signal.aborted || this.#current === null) return NO_TURN;
    return this.#current.token;
  }

  spanOf(token: number): SpanContext | null {
    return this.#turns.get(token)?.span.context ?? null;
  }

  /** FinishTurn or EnterRequiresAction committed. */
  complete(token: number): void {
    const turn = this.#turns.get(token);
    if (turn && turn.invalidated === null) turn.finished = true;
  }

  /** The first outcome is kept; one after complete is ignored (the finishing transition committed). */
  invalidate(token: number, outcome: TurnOutcome, error: unknown = null): void {
    const turn = this.#turns.get(token);
    if (turn && !turn.finished && turn.invalidated === null) turn.invalidated = { outcome, error };
  }

  /** Closes a finished or invalidated turn (end of the step, or after FinishInterruption). */
  settle(token: number): void {
    const turn = this.#turns.get(token);
    if (turn && turn.closedAtMs === null && (turn.finished || turn.invalidated !== null)) this.#close(turn);
  }

  /** The task returned: every turn it held that is closed and held by nobody else is emitted. */
  release(taskId: number): void {
    for (const turn of [...this.#turns.values()]) {
      if (!turn.holders.delete(taskId)) continue;
      if (turn.closedAtMs !== null && turn.holders.size === 0) this.#emit(turn);
    }
  }

  /** A promoted queued message: a standalone, turn-scoped queue_wait from its queueing to now. */
  queueWait(queuedAtMs: number): void {
    this.tracer.start("queue_wait", { identity: this.identity, startMs: queuedAtMs, attributes: { chat_id: this.chatId } }).end();
  }

  /** Runner exit: every task has returned; close the current turn and emit everything left. */
  exit(): void {
    if (this.#current) this.#close(this.#current);
    for (const turn of [...this.#turns.values()]) this.#emit(turn);
    this.#unsubscribe();
  }

  #open(trigger: number | null): Turn {
    const now = this.tracer.now();
    let startMs = now;
    let acquisition = false;
    if (this.#takenOver) {
      // The previous owner's work is not pickup delay.
      this.#takenOver = false;
    } else if (trigger !== null) {
      if (this.#lastAnchor !== null && trigger <= this.#lastAnchor) {
        this.tracer.metrics.add(STAGE_ANOMALIES, { reason: "stale_anchor" });
      } else {
        startMs = Math.min(trigger, now);
        acquisition = true;
      }
    }
    if (trigger !== null) this.#lastAnchor = Math.max(this.#lastAnchor ?? trigger, trigger);
    const span = this.tracer.start("chat_turn", { identity: this.identity, startMs, attributes: { chat_id: this.chatId } });
    const turn: Turn = {
      token: this.#nextToken++,
      span,
      trigger,
      holders: new Set(),
      finished: false,
      invalidated: null,
      closedAtMs: null,
      stages: [],
    };
    this.#turns.set(turn.token, turn);
    this.#current = turn;
    if (acquisition) this.tracer.start("acquisition", { identity: this.identity, parent: span.context, startMs }).end({ endMs: now });
    return turn;
  }

  #close(turn: Turn): void {
    turn.closedAtMs ??= this.tracer.now();
    if (this.#current === turn) this.#current = null;
    if (turn.holders.size === 0) this.#emit(turn);
  }

  #emit(turn: Turn): void {
    if (!this.#turns.delete(turn.token)) return;
    const outcome: TurnOutcome = turn.invalidated?.outcome ?? (turn.finished ? "completed" : "abandoned");
    const error = outcome === "error" ? errorText(turn.invalidated?.error ?? "error") : null;
    const endMs = turn.closedAtMs ?? this.tracer.now();
    turn.span.set({ turn_outcome: outcome });
    // Only a completed turn is observed: the histogram measures how long a reply takes.
    turn.span.end({ endMs, error, observe: outcome === "completed" });
    this.tracer.metrics.add(TURN_OUTCOMES, { outcome, chat_kind: this.#chatKind });
    this.emitted({
      trace_id: turn.span.traceId,
      started_at: new Date(turn.span.startMs).toISOString(),
      ended_at: new Date(endMs).toISOString(),
      duration_ms: endMs - turn.span.startMs,
      outcome,
      error,
      stages: turn.stages.map((s) => ({
        name: s.name,
        span_id: s.spanId,
        parent_span_id: s.parentSpanId,
        offset_ms: s.startMs - turn.span.startMs,
        duration_ms: s.endMs - s.startMs,
        error: s.error,
        attributes: s.attributes,
      })),
    });
  }

  /** Ended stages of an open turn's trace, for its summary. */
  #collect(record: SpanRecord): void {
    for (const turn of this.#turns.values()) {
      if (turn.span.traceId !== record.traceId) continue;
      if (turn.stages.length < MAX_SUMMARY_STAGES) turn.stages.push(record);
      return;
    }
  }
}
