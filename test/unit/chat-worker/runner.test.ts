/**
 * ChatRunner's event processing (spec "Event processing") with scripted task bodies: which task
 * runs for which event, what is ignored, what is cancelled, the in-memory lock per intended
 * (history_version, status), and cleanup. No database: the runner itself never touches one.
 */
import { describe, expect, it } from "vitest";
import type { ChatStatus } from "../../../src/chatstate/states";
import type { RunnerEvent } from "../../../src/chat-worker/event";
import { ChatRunner, type TaskKind } from "../../../src/chat-worker/runner";
import type { ChatSnapshot } from "../../../src/chat-worker/fenced-db";
import type { RunnerDeps, TaskContext } from "../../../src/chat-worker/task-context";
import { FenceError } from "../../../src/chat-worker/fence";
import { Metrics } from "../../../src/observability/metrics";
import { StageTracing } from "../../../src/observability/stage-tracing";
import { TASK_RETRY_INITIAL_MS } from "../../../src/chat-worker/run-task";

const WORKER = "worker-1";
const RUNNER = "runner-1";

type TaskBodies = Record<TaskKind, (ctx: TaskContext) => Promise<void>>;

/** A runner whose tasks run the test's scripted bodies. */
class ScriptedRunner extends ChatRunner {
  constructor(
    private readonly tasks: TaskBodies,
    ...args: ConstructorParameters<typeof ChatRunner>
  ) {
    super(...args);
  }

  protected override taskBody(kind: TaskKind, ctx: TaskContext): Promise<void> {
    return this.tasks[kind](ctx);
  }
}

interface Started {
  kind: TaskKind;
  ctx: TaskContext;
  /** Ends the task's body. */
  finish(): void;
  ended: boolean;
}

/** Task bodies that record each start and run until the test finishes them (cancellation ignored unless asked). */
function scriptedTasks(options: { endOnAbort?: boolean } = {}) {
  const started: Started[] = [];
  const body = (kind: TaskKind) => (ctx: TaskContext) =>
    new Promise<void>((resolve) => {
      const entry: Started = {
        kind,
        ctx,
        ended: false,
        finish: () => {
          entry.ended = true;
          resolve();
        },
      };
      started.push(entry);
      if (options.endOnAbort) ctx.signal.addEventListener("abort", () => entry.finish(), { once: true });
    });
  const tasks: TaskBodies = {
    generation: body("generation"),
    interrupt: body("interrupt"),
    requires_action_timeout: body("requires_action_timeout"),
    abandon: body("abandon"),
  };
  return { started, tasks };
}

/** What the runner itself uses of its deps: the task bodies here use none of the rest. */
const runnerDeps = (sleep: RunnerDeps["sleep"]) =>
  ({ sleep, tracer: new StageTracing(null, new Metrics()), turnEmitted: () => {} }) as Partial<RunnerDeps> as RunnerDeps;
const deps = runnerDeps(async () => {});

function event(snapshot: number, history: number, status: ChatStatus, extra: Partial<RunnerEvent> = {}): RunnerEvent {
  return {
    workerId: WORKER,
    runnerId: RUNNER,
    snapshotVersion: snapshot,
    historyVersion: history,
    generationAttempt: 0,
    archived: false,
    status,
    ...extra,
  };
}

function runnerWith(tasks: TaskBodies, runnerDepsOf: RunnerDeps = deps) {
  const lost: ChatRunner[] = [];
  const kept: Promise<unknown>[] = [];
  const runner = new ScriptedRunner(
    tasks,
    "chat-1",
    WORKER,
    RUNNER,
    runnerDepsOf,
    (r) => lost.push(r),
    (w) => kept.push(w),
  );
  return { runner, lost, kept };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("ChatRunner.process", () => {
  it.each<[ChatStatus, boolean, TaskKind]>([
    ["running", false, "generation"],
    ["interrupting", false, "interrupt"],
    ["requires_action", false, "requires_action_timeout"],
    ["waiting", false, "abandon"],
    ["error", false, "abandon"],
    ["running", true, "abandon"],
  ])("status %s (archived %s) runs %s", async (status, archived, kind) => {
    const { started, tasks } = scriptedTasks();
    const { runner } = runnerWith(tasks);
    runner.process(event(1, 1, status, { archived }));
    await flush();
    expect(started.map((s) => s.kind)).toEqual([kind]);
    expect(started[0]?.ctx.fence).toEqual({ chatId: "chat-1", workerId: WORKER, runnerId: RUNNER, historyVersion: 1, status });
  });

  it("ignores a duplicate or older snapshot", async () => {
    const { started, tasks } = scriptedTasks();
    const { runner } = runnerWith(tasks);
    runner.process(event(5, 2, "running"));
    runner.process(event(5, 3, "interrupting"));
    runner.process(event(4, 3, "interrupting"));
    await flush();
    expect(started.map((s) => s.kind)).toEqual(["generation"]);
    expect(started[0]?.ctx.signal.aborted).toBe(false);
  });

  it("a newer snapshot of the same work (history and status) spawns nothing", async () => {
    const { started, tasks } = scriptedTasks();
    const { runner } = runnerWith(tasks);
    runner.process(event(1, 2, "running"));
    runner.process(event(2, 2, "running", { generationAttempt: 3 }));
    await flush();
    expect(started).toHaveLength(1);
    expect(started[0]?.ctx.signal.aborted).toBe(false);
  });

  it("a task cancelled before it started never runs its body", async () => {
    const { started, tasks } = scriptedTasks();
    const { runner } = runnerWith(tasks);
    runner.process(event(1, 1, "running"));
    runner.process(event(2, 2, "running"));
    await flush();
    expect(started.map((s) => s.ctx.fence.historyVersion)).toEqual([2]);
  });

  it("newer history cancels the active task without waiting and spawns the next at once", async () => {
    const { started, tasks } = scriptedTasks();
    const { runner } = runnerWith(tasks);
    runner.process(event(1, 1, "running"));
    await flush();
    runner.process(event(2, 2, "running"));
    await flush();
    expect(started.map((s) => [s.kind, s.ctx.fence.historyVersion])).toEqual([
      ["generation", 1],
      ["generation", 2],
    ]);
    expect(started[0]?.ctx.signal.aborted).toBe(true);
    expect(started[0]?.ended).toBe(false); // still running: the runner did not wait for it
    expect(started[1]?.ctx.signal.aborted).toBe(false);
    expect(runner.activeTask).toBe("generation");
  });

  it("another worker or runner owning the chat means cleanup, and no task", async () => {
    for (const foreign of [{ workerId: "worker-2" }, { runnerId: "runner-2" }, { workerId: null, runnerId: null }]) {
      const { started, tasks } = scriptedTasks();
      const { runner, lost } = runnerWith(tasks);
      runner.process(event(1, 1, "running", foreign));
      await flush();
      expect(lost).toEqual([runner]);
      expect(started).toEqual([]);
    }
  });

  it("two tasks for the same (history_version, status) never overlap: the second waits for the first", async () => {
    const { started, tasks } = scriptedTasks();
    const { runner } = runnerWith(tasks);
    runner.process(event(1, 1, "running"));
    await flush();
    runner.process(event(2, 1, "waiting")); // cancels generation@1; it ignores the signal for now
    await flush();
    runner.process(event(3, 1, "running")); // generation@1 again: must wait for the first to exit
    await flush();
    expect(started.map((s) => s.kind)).toEqual(["generation", "abandon"]);
    started[0]?.finish();
    await expect.poll(() => started.map((s) => s.kind)).toEqual(["generation", "abandon", "generation"]);
  });

  it("runs a failing body again after each backoff until it succeeds, then exits done", async () => {
    const waits: number[] = [];
    let calls = 0;
    const failThrice = async () => {
      calls++;
      if (calls <= 3) throw new Error("database unreachable");
    };
    const tasks: TaskBodies = { generation: failThrice, interrupt: failThrice, requires_action_timeout: failThrice, abandon: failThrice };
    const { runner, kept } = runnerWith(
      tasks,
      runnerDeps(async (ms: number) => void waits.push(ms)),
    );
    runner.process(event(1, 1, "running"));
    expect(await Promise.all(kept)).toEqual(["done"]);
    expect(calls).toBe(4);
    expect(waits).toEqual([TASK_RETRY_INITIAL_MS, TASK_RETRY_INITIAL_MS * 2, TASK_RETRY_INITIAL_MS * 4]);
  });

  it("a stale fence ends the task at once, without a retry", async () => {
    let calls = 0;
    const staleFence = async (ctx: TaskContext) => {
      calls++;
      throw new FenceError(ctx.fence, { historyVersion: 2, status: "running", runnerId: RUNNER, workerId: WORKER });
    };
    const tasks: TaskBodies = { generation: staleFence, interrupt: staleFence, requires_action_timeout: staleFence, abandon: staleFence };
    const { runner, kept } = runnerWith(tasks);
    runner.process(event(1, 1, "running"));
    expect(await Promise.all(kept)).toEqual(["stale"]);
    expect(calls).toBe(1);
  });

  it("stop cancels every task, waits for them, and ignores later events", async () => {
    const { started, tasks } = scriptedTasks({ endOnAbort: true });
    const { runner } = runnerWith(tasks);
    runner.process(event(1, 1, "running"));
    await flush();
    await runner.stop();
    expect(started[0]?.ended).toBe(true);
    expect(runner.activeTask).toBeNull();
    runner.process(event(2, 2, "running"));
    await flush();
    expect(started).toHaveLength(1);
  });

  it("hands every task to keepAlive, so the runtime keeps it alive", async () => {
    const { tasks, started } = scriptedTasks();
    const { runner, kept } = runnerWith(tasks);
    runner.process(event(1, 1, "running"));
    runner.process(event(2, 2, "interrupting"));
    await flush();
    expect(kept).toHaveLength(2);
    for (const s of started) s.finish();
    await Promise.all(kept);
  });

  it("hands the acquisition's read to the first task on the acquired row, once; a later event's task gets none", async () => {
    const { started, tasks } = scriptedTasks({ endOnAbort: true });
    const { runner } = runnerWith(tasks);
    const acquiredRow = event(5, 3, "running");
    const read = { chat: acquiredRow, history: [] } as unknown as ChatSnapshot;
    runner.acquired({ chatKind: "root", takenOver: false, startingRead: read });
    runner.process(acquiredRow);
    await flush();
    const first = started[0]!.ctx;
    expect(first.startingRead.take(first.fence)).toBe(read);
    // A retry of the same task reads for itself.
    expect(first.startingRead.take(first.fence)).toBeUndefined();

    runner.process(event(6, 4, "running"));
    await flush();
    expect(started).toHaveLength(2);
    expect(started[1]!.ctx.startingRead.take(started[1]!.ctx.fence)).toBeUndefined();
  });

  it("hands a task's commit read to the task spawned for that commit's row, and to none other", async () => {
    const { started, tasks } = scriptedTasks({ endOnAbort: true });
    const { runner } = runnerWith(tasks);
    runner.process(event(5, 3, "running"));
    await flush();
    const committedRow = event(6, 4, "running");
    const read = { chat: committedRow, history: [] } as unknown as ChatSnapshot;
    started[0]!.ctx.startingRead.leave(read);
    runner.process(committedRow);
    await flush();
    expect(started[1]!.ctx.startingRead.take(started[1]!.ctx.fence)).toBe(read);
    expect(started[1]!.ctx.startingRead.take(started[1]!.ctx.fence)).toBeUndefined();

    // Handed off, but another row's event came first: it is stale and dropped.
    started[1]!.ctx.startingRead.leave({ chat: event(8, 6, "running"), history: [] } as unknown as ChatSnapshot);
    runner.process(event(7, 5, "running"));
    await flush();
    runner.process(event(8, 6, "running"));
    await flush();
    expect(started.slice(2).map((s) => s.ctx.startingRead.take(s.ctx.fence))).toEqual([undefined, undefined]);
  });

  it("gives the acquisition's read to no task when the first event is not the acquired row", async () => {
    const { started, tasks } = scriptedTasks();
    const { runner } = runnerWith(tasks);
    runner.acquired({
      chatKind: "root",
      takenOver: false,
      startingRead: { chat: event(5, 3, "running"), history: [] } as unknown as ChatSnapshot,
    });
    runner.process(event(7, 4, "running"));
    await flush();
    expect(started[0]!.ctx.startingRead.take(started[0]!.ctx.fence)).toBeUndefined();
  });
});
