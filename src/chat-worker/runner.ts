/**
 * ChatRunner: the spec's runner event loop ("Event processing"), for one (chat, runner_id). It
 * never touches the database itself: each event decides which task should be running, cancels the
 * one that should not (without waiting for it), and spawns the replacement.
 */
import { errorText, logger } from "../log/log";
import type { RunnerEvent } from "./event";
import type { Fence } from "./fence";
import type { ChatSnapshot } from "./fenced-db";
import { exitOrRetry, type TaskExit } from "./run-task";
import { StartingReads } from "./starting-read";
import type { RunnerDeps, TaskContext } from "./task-context";
import { abandonTask } from "./tasks/abandon";
import { generationTask } from "./tasks/generation";
import { interruptTask } from "./tasks/interrupt";
import { requiresActionTimeoutTask } from "./tasks/requires-action-timeout";
import type { StageTracing } from "../observability/stage-tracing";
import { TurnTracing } from "../observability/turn-tracing";
import type { ChatKind } from "../observability/stage-tracing";
import { TaskTracing } from "./task-tracing";
import { RunnerTurnDecisions } from "./turn-decisions";

export type TaskKind = "generation" | "interrupt" | "requires_action_timeout" | "abandon";

interface RunningTask {
  id: number;
  kind: TaskKind;
  controller: AbortController;
  finished: boolean;
  done: Promise<TaskExit>;
}

export class ChatRunner {
  #last: Pick<RunnerEvent, "snapshotVersion" | "historyVersion" | "status"> | null = null;
  #tasks: RunningTask[] = [];
  #active: RunningTask | null = null;
  #nextId = 1;
  /** The in-memory lock per intended (history_version, status): two tasks for the same work never overlap. */
  #locks = new Map<string, Promise<unknown>>();
  #stopped = false;
  /** The read a commit left for the task spawned on its row (starting-read.ts). */
  readonly #startingReads = new StartingReads();
  readonly #tracer: StageTracing;
  /** This runner's turns (spec "Turn span lifecycle"). */
  readonly #turns: TurnTracing;
  /** Decisions that hold across the steps of a turn (turn-decisions.ts). */
  readonly decisions = new RunnerTurnDecisions();

  constructor(
    readonly chatId: string,
    readonly workerId: string,
    readonly runnerId: string,
    private readonly deps: RunnerDeps,
    /** The runner is no longer the owner: the worker should clean it up. */
    private readonly onLostOwnership: (runner: ChatRunner) => void,
    /** Keeps background work alive in the runtime (DurableObjectState.waitUntil). */
    private readonly keepAlive: (work: Promise<unknown>) => void = () => {},
  ) {
    this.#tracer = deps.tracer;
    this.#turns = new TurnTracing(chatId, this.#tracer, (turn) => deps.turnEmitted(turn));
  }

  /**
   * What acquisition learned: the chat's kind, whether a stale owner's chat was taken over, and
   * (when it read them) the chat and history under the row lock, which the first task starts from.
   */
  acquired(info: { chatKind: ChatKind; takenOver: boolean; startingRead?: ChatSnapshot | undefined }): void {
    this.#turns.acquired(info);
    this.#startingReads.leave(info.startingRead);
  }

  get activeTask(): TaskKind | null {
    return this.#active?.kind ?? null;
  }

  process(e: RunnerEvent): void {
    if (this.#stopped) return;
    // 1. stale or duplicate
    if (this.#last && e.snapshotVersion <= this.#last.snapshotVersion) return;
    try {
      // 2. another worker or runner owns the chat now
      if (e.workerId !== this.workerId || e.runnerId !== this.runnerId) {
        this.onLostOwnership(this);
        return;
      }
      // 3. same work
      if (this.#last && e.historyVersion === this.#last.historyVersion && e.status === this.#last.status) return;
      // 4. newer history or another status: cancel without waiting
      if (this.#active) {
        this.#active.controller.abort(new Error("superseded"));
        this.#active = null;
      }
      // 5. forget finished tasks
      this.#tasks = this.#tasks.filter((t) => !t.finished);
      // 6-10. spawn by state
      if (e.archived) this.#spawn("abandon", e);
      else if (e.status === "running") this.#spawn("generation", e);
      else if (e.status === "interrupting") this.#spawn("interrupt", e);
      else if (e.status === "requires_action") this.#spawn("requires_action_timeout", e);
      else this.#spawn("abandon", e);
    } finally {
      this.#last = { snapshotVersion: e.snapshotVersion, historyVersion: e.historyVersion, status: e.status };
    }
  }

  /** Runner cleanup: cancel every task. Returns when all have exited. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#startingReads.stop();
    for (const t of this.#tasks) t.controller.abort(new Error("runner stopped"));
    this.#active = null;
    await Promise.allSettled(this.#tasks.map((t) => t.done));
    // Runner exit: what is still open is emitted, as abandoned unless it finished.
    this.#turns.exit();
  }

  #spawn(kind: TaskKind, e: RunnerEvent): void {
    const controller = new AbortController();
    const fence: Fence = {
      chatId: this.chatId,
      workerId: this.workerId,
      runnerId: this.runnerId,
      historyVersion: e.historyVersion,
      status: e.status,
    };
    const lockKey = `${e.historyVersion}:${e.status}`;
    const previous = this.#locks.get(lockKey) ?? Promise.resolve();
    const task: RunningTask = { id: this.#nextId++, kind, controller, finished: false, done: Promise.resolve("done") };
    const trace = new TaskTracing(this.#tracer, this.#turns, task.id, controller.signal);
    // Only the event that is the read's row itself may start from it.
    const startingRead = this.#startingReads.forTask(e.snapshotVersion);
    const ctx: TaskContext = { ...this.deps, fence, signal: controller.signal, trace, startingRead, decisions: this.decisions };
    task.done = this.#run(previous, task, ctx, lockKey);
    this.#locks.set(lockKey, task.done);
    this.#tasks.push(task);
    this.#active = task;
    this.keepAlive(task.done);
  }

  /**
   * `task` once the task before it on the same work (`lockKey`) has exited: its body, run again
   * after an unexpected error until it ends in a controlled way (run-task.ts). Its exit is logged (a
   * crash is logged and ends it); then the lock is free, and the task's turns may be emitted.
   */
  async #run(previous: Promise<unknown>, task: RunningTask, ctx: TaskContext, lockKey: string): Promise<TaskExit> {
    await previous.catch(() => {});
    let exit: TaskExit | "retry" = "retry";
    try {
      for (let failures = 0; exit === "retry"; failures++) {
        if (ctx.signal.aborted) {
          exit = "cancelled";
          break;
        }
        try {
          await this.taskBody(task.kind, ctx);
          exit = "done";
        } catch (err) {
          exit = await exitOrRetry(task.kind, err, failures, ctx.signal, this.deps.sleep);
        }
      }
      logger.debug("runner_task_exit", { chat_id: this.chatId, task: task.kind, exit, history_version: ctx.fence.historyVersion });
      return exit;
    } catch (err) {
      logger.error("runner_task_crashed", { chat_id: this.chatId, task: task.kind, error: errorText(err) });
      return "done";
    } finally {
      task.finished = true;
      // Every stage the task started has ended.
      this.#turns.release(task.id);
      if (this.#locks.get(lockKey) === task.done) this.#locks.delete(lockKey);
    }
  }

  /** What a task of `kind` runs (spec "Event processing"); the runner's tests script their own. */
  protected taskBody(kind: TaskKind, ctx: TaskContext): Promise<void> {
    switch (kind) {
      case "generation":
        return generationTask(ctx);
      case "interrupt":
        return interruptTask(ctx);
      case "requires_action_timeout":
        return requiresActionTimeoutTask(ctx);
      case "abandon":
        return abandonTask(ctx);
    }
  }
}
