/**
 * The transition matrix, cell by cell, against the real Postgres (Coder's
 * TestTransitionMatrix_AllCombinations): every transition from every classified state (N, the 12
 * states of the table, Invalid), every request variant, both ownerships, and every outcome edge.
 * Allowed cells must land exactly where src/chatstate's EDGES say (composed with FinishInterruption
 * where the spec applies it in the same transaction for an unowned chat); rejected cells must throw
 * the typed error and leave the chat row, messages, queue and heartbeats byte-for-byte unchanged,
 * with no notification. afterAll fails when any cell went untested.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  ChatNotFoundError,
  CLASSIFIED_STATES,
  InvalidStateError,
  TRANSITION_MATRIX,
  TransitionNotAllowedError,
  type ClassifiedState,
  type Edge,
  type ExecutionState,
  type TransitionName,
} from "../../src/chatstate/index";
import { DYNAMIC_TOOL, makeChat, makeEnv, snapshotRows, stateOf, text, toolCall, type Env, type FixtureChat } from "./fixtures";
import {
  abandon,
  acquire,
  cancelRequiresAction,
  clearContext,
  commitStep,
  completeRequiresAction,
  deleteQueuedMessage,
  editMessage,
  enterRequiresAction,
  finishError,
  finishInterruption,
  finishTurn,
  interrupt,
  promoteQueuedMessage,
  reconcileInvalidState,
  recordGenerationAttempt,
  recordRetryState,
  requestCompaction,
  sendMessage,
} from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

vi.setConfig({ maxConcurrency: 12 });

type Own = "U" | "O";
type Expectation =
  | { kind: "lands"; to: ClassifiedState; own: Own }
  | { kind: "rejects"; error: typeof TransitionNotAllowedError | typeof InvalidStateError | typeof ChatNotFoundError };

interface Run {
  key: string;
  transition: TransitionName;
  from: ClassifiedState;
  /** The request variant (archive/unarchive, queue/interrupt, with user message/empty content). */
  variant: string | undefined;
  own: Own;
  /** The outcome edge this run exercises, for the names. */
  edge: Edge | undefined;
  queued: number;
  expect: Expectation;
}

const OUTCOME_NEEDS_TWO = /still non-empty/;

/** FinishInterruption as the same transaction applies it to an unowned chat left in I0/I1. */
function finishedInterruption(state: "I0" | "I1", queueLength: number): ExecutionState {
  return state === "I0" ? "W" : queueLength > 1 ? "R1" : "R0";
}

function queuedFor(from: ClassifiedState, edge: Edge | undefined): number {
  if (from === "Invalid") return edge?.variant === "queued messages" ? 1 : 0;
  if (!/1$/.test(from)) return 0;
  return edge?.variant !== undefined && OUTCOME_NEEDS_TWO.test(edge.variant) ? 2 : 1;
}

function runsFor(transition: TransitionName, from: ClassifiedState, variant: string | undefined, edges: readonly Edge[]): Run[] {
  const owns: Own[] = from === "N" ? ["U"] : ["U", "O"];
  const runs: Run[] = [];
  const push = (own: Own, edge: Edge | undefined, expectation: Expectation) =>
    runs.push({
      key: [transition, from, variant ?? "-", own, edge?.variant ?? "-"].join("|"),
      transition,
      from,
      variant,
      own,
      edge,
      queued: queuedFor(from, edge),
      expect: expectation,
    });
  for (const own of owns) {
    if (from === "N") {
      if (transition === "Create") push(own, edges[0], { kind: "lands", to: edges[0]!.to, own: "U" });
      else push(own, undefined, { kind: "rejects", error: ChatNotFoundError });
      continue;
    }
    if (transition === "Acquire") {
      push(own, undefined, { kind: "lands", to: from, own: "O" });
      continue;
    }
    if (transition === "Abandon") {
      push(own, undefined, own === "O" ? { kind: "lands", to: from, own: "U" } : { kind: "rejects", error: TransitionNotAllowedError });
      continue;
    }
    if (transition === "Create") {
      push(own, undefined, { kind: "rejects", error: TransitionNotAllowedError });
      continue;
    }
    if (from === "Invalid" && transition !== "ReconcileInvalidState") {
      push(own, undefined, { kind: "rejects", error: InvalidStateError });
      continue;
    }
    // "The endpoint also accepts an unowned chat that is already in I0 or I1 ... It applies
    // FinishInterruption in the same transaction ... An owned chat in I0 or I1 is rejected."
    if (transition === "Interrupt" && (from === "I0" || from === "I1")) {
      const queued = queuedFor(from, undefined);
      push(
        own,
        undefined,
        own === "U"
          ? { kind: "lands", to: finishedInterruption(from, queued), own }
          : { kind: "rejects", error: TransitionNotAllowedError },
      );
      continue;
    }
    if (edges.length === 0) {
      push(own, undefined, { kind: "rejects", error: TransitionNotAllowedError });
      continue;
    }
    for (const edge of edges) {
      let to: ExecutionState = edge.to;
      const queued = queuedFor(from, edge);
      const interrupts = transition === "Interrupt" || (transition === "SendMessage" && variant === "interrupt");
      if (own === "U" && interrupts && (to === "I0" || to === "I1")) {
        to = finishedInterruption(to, transition === "SendMessage" ? queued + 1 : queued);
      }
      push(own, edge, { kind: "lands", to, own });
    }
  }
  return runs;
}

const EXECUTION_RUNS = TRANSITION_MATRIX.flatMap((cell) => runsFor(cell.transition, cell.from, cell.variant, cell.edges));
// Ownership transitions apply to every execution state ("An archived chat may be acquired"), Invalid included.
const OWNERSHIP_RUNS = (["Acquire", "Abandon"] as const).flatMap((transition) =>
  CLASSIFIED_STATES.flatMap((from) => runsFor(transition, from, undefined, [])),
);
const RUNS = [...EXECUTION_RUNS, ...OWNERSHIP_RUNS];
const tested = new Set<string>();

let env: Env;
beforeAll(async () => {
  env = await makeEnv({}, 16);
});
afterAll(async () => {
  await env.pool.end();
});

/** What a run's transition needs besides the chat: done before the "before" snapshot. */
async function prepare(run: Run, chat: FixtureChat): Promise<void> {
  if (run.transition === "EnterRequiresAction" && (run.from === "R0" || run.from === "R1")) {
    await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: [toolCall(`call_${randomUUID()}`)] }] });
  }
}

function applyRun(run: Run, chat: FixtureChat): Promise<unknown> {
  const { store, owner } = env;
  const id = chat.chatId;
  const anyQueued = chat.queue[chat.queue.length - 1] ?? Number.MAX_SAFE_INTEGER; // no row has that id
  switch (run.transition) {
    case "Create":
      return store.create({
        id,
        organizationId: owner.organizationId,
        ownerId: owner.userId,
        content: run.variant === "with user message" ? text("new chat") : [],
        unsafeDynamicTools: [{ name: DYNAMIC_TOOL }],
      });
    case "SetArchived":
      return store.setArchived(id, run.variant === "archive");
    case "SendMessage":
      return apply(store, sendMessage, id, { content: text("matrix"), busyBehavior: run.variant as "queue" | "interrupt" });
    case "EditMessage":
      return apply(store, editMessage, id, { messageId: chat.firstUserMessageId, content: text("edited") });
    case "DeleteQueuedMessage":
      return apply(store, deleteQueuedMessage, id, { queuedMessageId: anyQueued });
    case "PromoteQueuedMessage":
      return apply(store, promoteQueuedMessage, id, { queuedMessageId: anyQueued });
    case "Interrupt":
      return apply(store, interrupt, id);
    case "CompleteRequiresAction":
      return apply(store, completeRequiresAction, id, {
        results: [{ tool_call_id: chat.pendingCallId ?? "call_none", output: { answer: "yes" } }],
      });
    case "RequestCompaction":
      return apply(store, requestCompaction, id);
    case "ClearContext":
      return apply(store, clearContext, id);
    case "CommitStep":
      return apply(store, commitStep, id, { messages: [{ role: "assistant", content: text("step") }] });
    case "EnterRequiresAction":
      return apply(store, enterRequiresAction, id);
    case "FinishInterruption":
      return apply(store, finishInterruption, id, {});
    case "RecordGenerationAttempt":
      return apply(store, recordGenerationAttempt, id);
    case "RecordRetryState":
      return apply(store, recordRetryState, id, { retryState: { attempt: 1, delay_ms: 100 } });
    case "FinishTurn":
      return apply(store, finishTurn, id);
    case "FinishError":
      return apply(store, finishError, id, { error: "boom" });
    case "CancelRequiresAction":
      return apply(store, cancelRequiresAction, id);
    case "ReconcileInvalidState":
      return apply(store, reconcileInvalidState, id);
    case "Acquire":
      return apply(store, acquire, id, { workerId: randomUUID(), runnerId: randomUUID() });
    case "Abandon":
      return apply(store, abandon, id);
  }
}

function title(run: Run): string {
  const label = run.variant === undefined ? run.transition : `${run.transition}(${run.variant})`;
  const outcome = run.edge?.variant === undefined || run.edge.variant === run.variant ? "" : ` / ${run.edge.variant}`;
  const owner = run.from === "N" ? "" : ` [${run.own}]`;
  if (run.expect.kind === "rejects") return `${run.from}${owner}: ${label} is rejected with ${run.expect.error.name} and changes nothing`;
  return `${run.from}${owner}: ${label}${outcome} lands in ${run.expect.to} [${run.expect.own}]`;
}

describe.concurrent("transition matrix", () => {
  it("covers the whole cross product", () => {
    expect(RUNS.length).toBeGreaterThan(250);
    // Every matrix cell, with both ownerships when the chat exists, has at least one run.
    for (const cell of TRANSITION_MATRIX) {
      for (const own of cell.from === "N" ? ["U"] : ["U", "O"]) {
        const prefix = [cell.transition, cell.from, cell.variant ?? "-", own].join("|");
        expect(
          RUNS.some((r) => r.key.startsWith(prefix)),
          prefix,
        ).toBe(true);
      }
    }
    expect(new Set(RUNS.map((r) => r.key)).size).toBe(RUNS.length);
  });

  for (const run of RUNS) {
    it(title(run), async () => {
      const chat: FixtureChat =
        run.from === "N"
          ? { chatId: randomUUID(), firstUserMessageId: Number.MAX_SAFE_INTEGER, queue: [], pendingCallId: null }
          : await makeChat(env, run.from as ExecutionState | "Invalid", {
              owned: run.own === "O",
              queued: Math.max(run.queued, 1),
              invalidQueued: run.from === "Invalid" ? run.queued : 0,
            });
      await prepare(run, chat);
      const before = await snapshotRows(env.pool, chat.chatId);
      const beforeRow = JSON.parse(before).chat as { snapshot_version: number; worker_id: string | null } | null;
      const updatesBefore = env.notifier.updatesFor(chat.chatId).length;

      if (run.expect.kind === "rejects") {
        const error = await applyRun(run, chat).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(error).toBeInstanceOf(run.expect.error);
        if (error instanceof TransitionNotAllowedError) {
          expect(error.transition).toBe(run.transition);
          expect(error.from).toBe(run.transition === "Abandon" ? run.own : run.from);
        }
        expect(await snapshotRows(env.pool, chat.chatId)).toBe(before);
        expect(env.notifier.updatesFor(chat.chatId).length).toBe(updatesBefore);
      } else {
        await applyRun(run, chat);
        const after = JSON.parse(await snapshotRows(env.pool, chat.chatId)).chat as { snapshot_version: number; worker_id: string | null };
        expect(await stateOf(env.pool, chat.chatId)).toBe(run.expect.to);
        expect(after.worker_id === null ? "U" : "O").toBe(run.expect.own);
        if (run.transition === "Acquire") expect(after.worker_id).not.toBe(beforeRow?.worker_id);
        expect(after.snapshot_version).toBe(run.from === "N" ? 1 : beforeRow!.snapshot_version + 1);
        const published = env.notifier.updatesFor(chat.chatId).slice(updatesBefore);
        expect(published.map((u) => u.snapshot_version)).toEqual([after.snapshot_version]);
      }
      tested.add(run.key);
    });
  }
});

afterAll(() => {
  const untested = RUNS.filter((r) => !tested.has(r.key)).map((r) => r.key);
  expect(untested, "cells of the transition matrix that went untested").toEqual([]);
});
