/**
 * A runner task's view of tracing: the turn it joined (by its token, src/observability/
 * turn-tracing.ts) and the stage its new stages nest under. Generation steps nest their stages
 * under their generation_step, that under the turn's chat_turn span.
 */
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import type { ResolvedModelConfig } from "../model-configs/resolve";
import type { SpanContext } from "../observability/span";
import type { Stage, StageModel, StageName, StageTracing } from "../observability/stage-tracing";
import { NO_TURN, type TurnOutcome, type TurnTracing } from "../observability/turn-tracing";

export class TaskTracing {
  #token = NO_TURN;
  /** The innermost open stage new stages nest under (generation_step, then stream). */
  #within: Stage[] = [];

  constructor(
    readonly tracer: StageTracing,
    private readonly turns: TurnTracing,
    private readonly taskId: number,
    private readonly signal: AbortSignal,
  ) {}

  /** Joins the turn of `trigger` (a generation task's first read). */
  ensure(trigger: number | null): void {
    this.#token = this.turns.ensure(this.taskId, trigger, this.signal);
    for (const stage of this.#within) stage.adopt(this.turns.spanOf(this.#token));
  }

  /** Joins whatever turn is open (the interrupt task). */
  joinOpen(): void {
    this.#token = this.turns.openToken(this.signal);
  }

  /** The trace of the turn this task joined, if any (debug runs name it). */
  get traceId(): string | null {
    return this.turns.spanOf(this.#token)?.traceId ?? null;
  }

  get #parent(): SpanContext | null {
    return this.#within.at(-1)?.context ?? this.turns.spanOf(this.#token);
  }

  stage(
    name: StageName,
    options: { model?: StageModel | null; attributes?: Record<string, string | number | boolean>; startMs?: number; parent?: Stage } = {},
  ): Stage {
    const { parent, ...rest } = options;
    return this.tracer.start(name, { identity: this.turns.identity, parent: parent?.context ?? this.#parent, ...rest });
  }

  /** `stage` is the parent of the stages started from now until it is left. */
  nest(stage: Stage): Stage {
    this.#within.push(stage);
    return stage;
  }

  /** Ends a nested `stage` (with `end.error` when what it measured failed) and stops nesting under it. */
  leave(stage: Stage, end: { error?: unknown } = {}): void {
    stage.end(end);
    this.#within.splice(this.#within.indexOf(stage), 1);
  }

  complete(): void {
    this.turns.complete(this.#token);
  }

  invalidate(outcome: TurnOutcome, error: unknown = null): void {
    this.turns.invalidate(this.#token, outcome, error);
  }

  settle(): void {
    this.turns.settle(this.#token);
  }

  queueWait(queuedAt: Date): void {
    this.turns.queueWait(queuedAt.getTime());
  }
}

/**
 * The spec's trigger time: the latest of the last user prompt's created_at, a dynamic tool's
 * result after it (results a client submitted carry its user id), and compaction_requested_at.
 */
export function turnTrigger(chat: Pick<ChatRow, "compactionRequestedAt">, history: readonly ChatMessageRow[]): number | null {
  let trigger = chat.compactionRequestedAt?.getTime() ?? null;
  const rows = history.filter((row) => !row.deleted);
  const promptAt = rows.findLastIndex((row) => row.role === "user" && !row.modelOnly);
  if (promptAt === -1) return trigger;
  for (const row of rows.slice(promptAt)) {
    const prompt = row.role === "user" && !row.modelOnly;
    if (prompt || (row.role === "tool" && row.createdBy !== null)) trigger = Math.max(trigger ?? 0, row.createdAt.getTime());
  }
  return trigger;
}

/** The model attributes of the stages that run on a resolved model. */
export function stageModel(resolved: ResolvedModelConfig, transport: string, reasoningEffort: string | null): StageModel {
  return { provider: transport, providerType: resolved.provider.type, model: resolved.config.model, reasoningEffort };
}
