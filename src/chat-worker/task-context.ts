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
import type { ChatTools, ToolChat, ToolStep } from "../tools/chat-tools";
import type { HookDispatcher } from "../hooks/dispatcher";
import type { AttributionKeyCache } from "./attribution";
import type { Fence } from "./fence";
import type { ChatSnapshot } from "./fenced-db";
import type { FileReader } from "./prompt-files";
import type { StageTracing } from "../observability/stage-tracing";
import type { TurnSummary } from "../observability/turn-tracing";
import type { TaskTracing } from "./task-tracing";

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
  /** Optional fetch for model providers (a test's recorder and the like). */
  fetch?: typeof fetch;
  /** Attachment bytes (the object's R2 bucket); without it files reach the model as text placeholders. */
  files?: FileReader;
  /** Lifecycle hooks (src/hooks); off when absent. */
  hooks?: HookDispatcher;
  /** The owner's attribution key id, kept across turns (src/chat-worker/attribution.ts). */
  attributionKeys?: AttributionKeyCache;
  /** The object's StageTracing (src/observability); a local one that exports nothing when absent. */
  tracer?: StageTracing;
  /** Every emitted turn, for the chat's turn log. */
  turnEmitted?: (summary: TurnSummary) => void;
}

export interface TaskContext extends RunnerDeps {
  fence: Fence;
  signal: AbortSignal;
  /** The task's turn and stages. */
  trace: TaskTracing;
  /**
   * The chat and history as a commit left them (the acquisition's read under the row lock, or the
   * previous task's own commit), for the task spawned for that very row: answered once (a retry
   * reads again), and only when the task's fence is that row's.
   */
  takeStartingRead?: () => ChatSnapshot | undefined;
  /**
   * Gives the runner the chat and history this task's commit left, for the task it spawns on that
   * commit's notification (takeStartingRead). Call it after COMMIT, before the notification is handled.
   */
  leaveStartingRead?: (read: ChatSnapshot) => void;
}
