/**
 * What every runner task gets: its fence, its cancellation signal, and the object's shared parts
 * (store, part buffer, model resolution, clock).
 */
import type { Config } from "../config/env";
import type { Database } from "../db/database";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import type { ChatStore } from "../chats/store";
import type { ResolvedModelConfig } from "../model-configs/resolve";
import type { StreamPart } from "../wire/stream-part";
import type { PartBuffer } from "../part-buffer/part-buffer";
import type { ChatTools, ToolChat, ToolStep, TurnDecisions } from "../tools/chat-tools";
import type { HookDispatcher } from "../hooks/dispatcher";
import type { AttributionKeyCache } from "./attribution";
import type { Fence } from "./fence";
import type { StartingRead } from "./starting-read";
import type { FileReader } from "./prompt-files";
import type { StageTracing } from "../observability/stage-tracing";
import type { TurnSummary } from "../observability/turn-tracing";
import type { TaskTracing } from "./task-tracing";
import type { DebugRecorder } from "../debug-runs/recorder";

export interface RunnerDeps {
  store: ChatStore;
  db: Database;
  config: Config;
  parts: PartBuffer<StreamPart>;
  /** The chat's local tools for this step: offered to the model and run from the same registry (src/tools). */
  toolsFor(chat: ToolChat, step?: ToolStep): Promise<ChatTools>;
  now(): Date;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * A turn finished complete (FinishTurn committed): starts what follows it, such as the title.
   * `model`: the model the turn's last call used, when the turn ended in that call's commit.
   */
  turnFinished(chat: ChatRow, history: readonly ChatMessageRow[], model?: ResolvedModelConfig): void;
  /** The fetch model providers use (the platform's; a test's recorder and the like). */
  fetch: typeof fetch;
  /** Attachment bytes (the object's R2 bucket). */
  files: FileReader;
  /** Lifecycle hooks (src/hooks); DISABLED_HOOKS when off. */
  hooks: HookDispatcher;
  /** The owner's attribution key id, kept across turns (src/chat-worker/attribution.ts). */
  attributionKeys: AttributionKeyCache;
  /** The object's StageTracing (src/observability). */
  tracer: StageTracing;
  /** Every emitted turn, for the chat's turn log. */
  turnEmitted(summary: TurnSummary): void;
  /** Debug runs (src/debug-runs): records the chat's model calls when it and the deployment ask for it. */
  debugRuns?: DebugRecorder | undefined;
}

export interface TaskContext extends RunnerDeps {
  fence: Fence;
  signal: AbortSignal;
  /** The task's turn and stages. */
  trace: TaskTracing;
  /** The read the commit that spawned this task left for it, and where its own commit leaves the next (starting-read.ts). */
  startingRead: StartingRead;
  /** The runner's per-turn decisions (turn-decisions.ts). */
  decisions: TurnDecisions;
}
