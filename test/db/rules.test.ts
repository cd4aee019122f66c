/**
 * The cross-cutting rules, one test each: each is implemented once (ChatTx.land, history.ts,
 * queue.ts, title.ts) and must hold for every transition that reaches it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatStore, StoreInvariantError, writeTitle } from "../../src/chats/index";
import { promoteQueued } from "../../src/chats/queue";
import { chatRow, DYNAMIC_TOOL, history, LOCAL_TOOL, makeChat, makeEnv, queueOf, snapshotRows, text, toolCall, type Env } from "./fixtures";
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
  recordGenerationAttempt,
  recordRetryState,
  requestCompaction,
  sendMessage,
} from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

const toolResults = (rows: Awaited<ReturnType<typeof history>>) =>
  rows.flatMap((m) => m.content.flatMap((p) => (p.type === "tool-result" ? [{ role: m.role, ...p }] : [])));

describe.concurrent("cross-cutting rules", () => {
  it("rule 1: leaving requires_action other than by CompleteRequiresAction answers pending dynamic calls", async () => {
    for (const leave of ["interrupt", "cancel", "sendInterrupt"] as const) {
      const chat = await makeChat(env, "A0", { owned: true });
      if (leave === "interrupt") await apply(env.store, interrupt, chat.chatId);
      if (leave === "cancel") await apply(env.store, cancelRequiresAction, chat.chatId, { reason: "too slow" });
      if (leave === "sendInterrupt")
        await apply(env.store, sendMessage, chat.chatId, { content: text("never mind"), busyBehavior: "interrupt" });
      const results = toolResults(await history(env, chat.chatId));
      expect(results, leave).toEqual([
        expect.objectContaining({ role: "tool", tool_call_id: chat.pendingCallId, tool_name: DYNAMIC_TOOL, is_error: true }),
      ]);
    }
    // Staying in A (a queued send) answers nothing.
    const waiting = await makeChat(env, "A0", { owned: true });
    await apply(env.store, sendMessage, waiting.chatId, { content: text("later"), busyBehavior: "queue" });
    expect(toolResults(await history(env, waiting.chatId))).toEqual([]);
  });

  it("rule 2: a user message entering history is preceded by results for outstanding tool calls", async () => {
    // An error in the middle of a local tool call leaves the call unanswered.
    const chat = await makeChat(env, "R0", { owned: true });
    await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: [toolCall("call_local", LOCAL_TOOL)] }] });
    await apply(env.store, finishError, chat.chatId, { error: "tool crashed" });
    const sent = await apply(env.store, sendMessage, chat.chatId, { content: text("try again"), busyBehavior: "queue" });
    expect(sent.value.messages.map((m) => [m.role, m.content[0]?.type])).toEqual([
      ["tool", "tool-result"],
      ["user", "text"],
    ]);
    expect(sent.value.messages[0]!.content[0]).toMatchObject({ tool_call_id: "call_local", tool_name: LOCAL_TOOL, is_error: true });

    // The same through a promotion: FinishTurn from R1 with a call left open.
    const queued = await makeChat(env, "R1", { owned: true });
    await apply(env.store, commitStep, queued.chatId, { messages: [{ role: "assistant", content: [toolCall("call_open", LOCAL_TOOL)] }] });
    const finished = await apply(env.store, finishTurn, queued.chatId);
    const tail = (await history(env, queued.chatId)).slice(-3);
    expect(tail.map((m) => m.role)).toEqual(["assistant", "tool", "user"]);
    expect(tail[2]!.id).toBe(finished.value.promoted!.message.id);
  });

  it("rule 3: leaving error clears last_error; staying in error or archiving keeps it", async () => {
    const e1 = await makeChat(env, "E1", { queued: 2 });
    const deleted = await apply(env.store, deleteQueuedMessage, e1.chatId, { queuedMessageId: e1.queue[1]! });
    expect(deleted.chat.lastError).toBe("model failed");
    const archived = await env.store.setArchived(e1.chatId, true);
    expect(archived.chats[0]!.lastError).toBe("model failed");
    await env.store.setArchived(e1.chatId, false);
    const promoted = await apply(env.store, promoteQueuedMessage, e1.chatId, { queuedMessageId: e1.queue[0]! });
    expect(promoted.chat.lastError).toBeNull();

    for (const leave of ["send", "edit", "compact", "clear"] as const) {
      const e0 = await makeChat(env, "E0");
      const result =
        leave === "send"
          ? await apply(env.store, sendMessage, e0.chatId, { content: text("again"), busyBehavior: "queue" })
          : leave === "edit"
            ? await apply(env.store, editMessage, e0.chatId, { messageId: e0.firstUserMessageId, content: text("edited") })
            : leave === "compact"
              ? await apply(env.store, requestCompaction, e0.chatId)
              : await apply(env.store, clearContext, e0.chatId);
      expect(result.chat.lastError, leave).toBeNull();
    }
  });

  it("rule 3 holds for the error's structured detail: stored with last_error, replaced, cleared with it", async () => {
    const w = await makeChat(env, "W");
    const detail = { kind: "rate_limited", provider: "openai", retryable: true, status_code: 429, detail: null };
    const failed = await apply(env.store, finishError, w.chatId, { error: "openai answered 429", detail: detail });
    expect(failed.chat.lastErrorDetail).toEqual(detail);
    const plain = await makeChat(env, "W");
    expect((await apply(env.store, finishError, plain.chatId, { error: "no model" })).chat.lastErrorDetail).toBeNull();
    const archived = await env.store.setArchived(w.chatId, true);
    expect(archived.chats[0]!.lastErrorDetail).toEqual(detail);
    await env.store.setArchived(w.chatId, false);
    const sent = await apply(env.store, sendMessage, w.chatId, { content: text("again"), busyBehavior: "queue" });
    expect(sent.chat.lastErrorDetail).toBeNull();
  });

  it("rule 4: every promotion stores queued_message_id and fails unless exactly one queue row was deleted", async () => {
    const chat = await makeChat(env, "R1", { owned: true, queued: 2 });
    const finished = await apply(env.store, finishTurn, chat.chatId);
    expect(finished.value.promoted!.message.queuedMessageId).toBe(chat.queue[0]);
    expect(finished.value.promoted!.queued.id).toBe(chat.queue[0]);
    const others = (await history(env, chat.chatId)).filter((m) => m.id !== finished.value.promoted!.message.id);
    expect(others.every((m) => m.queuedMessageId === null)).toBe(true);

    const before = await snapshotRows(env.pool, chat.chatId);
    await expect(env.store.update(chat.chatId, (tx) => promoteQueued(tx, Number.MAX_SAFE_INTEGER, "test"))).rejects.toBeInstanceOf(
      StoreInvariantError,
    );
    expect(await snapshotRows(env.pool, chat.chatId)).toBe(before);
  });

  it("rule 5: compaction_requested_at is carried by Acquire, Abandon, queueing and in-turn steps, and cleared by the rest", async () => {
    const chat = await makeChat(env, "W");
    const requested = await apply(env.store, requestCompaction, chat.chatId);
    expect(requested.chat.compactionRequestedAt).not.toBeNull();
    const carried = [
      await apply(env.store, acquire, chat.chatId, { workerId: randomUUID(), runnerId: randomUUID() }),
      await apply(env.store, sendMessage, chat.chatId, { content: text("after the summary"), busyBehavior: "queue" }),
      await apply(env.store, recordGenerationAttempt, chat.chatId),
      await apply(env.store, recordRetryState, chat.chatId, { retryState: { attempt: 1 } }),
      await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("tool step") }] }),
      await apply(env.store, abandon, chat.chatId),
    ];
    for (const c of carried) expect(c.chat.compactionRequestedAt, c.applied[0]!.transition).toEqual(requested.chat.compactionRequestedAt);
    const consumed = await apply(env.store, commitStep, chat.chatId, {
      messages: [{ role: "assistant", content: text("summary") }],
      consumeCompactionRequest: true,
    });
    expect(consumed.chat.compactionRequestedAt).toBeNull();

    // Cleared by construction: a marker on an interrupted turn does not survive it.
    const other = await makeChat(env, "W");
    await apply(env.store, requestCompaction, other.chatId);
    await apply(env.store, acquire, other.chatId, { workerId: randomUUID(), runnerId: randomUUID() });
    expect((await apply(env.store, interrupt, other.chatId)).chat.compactionRequestedAt).toBeNull();

    // SetArchived carries it (a marker on an idle chat only exists through a direct write).
    const idle = await makeChat(env, "W");
    await env.pool.query(`UPDATE chats SET compaction_requested_at = now() WHERE id = $1`, [idle.chatId]);
    const archived = await env.store.setArchived(idle.chatId, true);
    expect(archived.chats[0]!.compactionRequestedAt).not.toBeNull();
  });

  it("rule 6: retry state is cleared whenever the status leaves running", async () => {
    for (const leave of ["interrupt", "enterRequiresAction", "finishError", "finishTurn"] as const) {
      const chat = await makeChat(env, "R0", { owned: true });
      if (leave === "enterRequiresAction") {
        await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: [toolCall(`call_${leave}`)] }] });
      }
      await apply(env.store, recordRetryState, chat.chatId, { retryState: { attempt: 3 } });
      const left =
        leave === "interrupt"
          ? await apply(env.store, interrupt, chat.chatId)
          : leave === "enterRequiresAction"
            ? await apply(env.store, enterRequiresAction, chat.chatId)
            : leave === "finishError"
              ? await apply(env.store, finishError, chat.chatId, { error: "gave up" })
              : await apply(env.store, finishTurn, chat.chatId);
      expect(left.chat.status, leave).not.toBe("running");
      expect(left.chat.retryState, leave).toBeNull();
      expect(left.chat.retryStateVersion, leave).toBe(left.chat.snapshotVersion);
    }
    // Staying in running keeps it.
    const running = await makeChat(env, "R0", { owned: true });
    await apply(env.store, recordRetryState, running.chatId, { retryState: { attempt: 1 } });
    const queued = await apply(env.store, sendMessage, running.chatId, { content: text("next"), busyBehavior: "queue" });
    expect(queued.chat.retryState).toEqual({ attempt: 1 });
  });

  it("rule 7: queue positions stay contiguous through deletes, reorders and promotions", async () => {
    const chat = await makeChat(env, "R1", { owned: true, queued: 5 });
    const positions = async () => (await queueOf(env, chat.chatId)).map((q) => [q.id, q.position]);
    await apply(env.store, deleteQueuedMessage, chat.chatId, { queuedMessageId: chat.queue[2]! });
    expect(await positions()).toEqual([chat.queue[0], chat.queue[1], chat.queue[3], chat.queue[4]].map((id, i) => [id, i]));
    await apply(env.store, promoteQueuedMessage, chat.chatId, { queuedMessageId: chat.queue[3]! });
    expect(await positions()).toEqual([chat.queue[3], chat.queue[0], chat.queue[1], chat.queue[4]].map((id, i) => [id, i]));
    await apply(env.store, finishInterruption, chat.chatId);
    expect(await positions()).toEqual([chat.queue[0], chat.queue[1], chat.queue[4]].map((id, i) => [id, i]));
    await apply(env.store, finishError, chat.chatId, { error: "stop" });
    await apply(env.store, promoteQueuedMessage, chat.chatId, { queuedMessageId: chat.queue[1]! });
    expect(await positions()).toEqual([chat.queue[0], chat.queue[4]].map((id, i) => [id, i]));
  });

  it("rule 8: title writes follow the source ranking, set title_updated_at and leave updated_at", async () => {
    const chat = await makeChat(env, "W");
    const before = await chatRow(env, chat.chatId);
    const generated = await writeTitle(env.pool, chat.chatId, "A generated title", "generated");
    expect(generated).toMatchObject({ applied: true, chat: { title: "A generated title", titleSource: "generated" } });
    expect(generated.chat.updatedAt).toEqual(before.updated_at);
    expect(generated.chat.titleUpdatedAt.getTime()).toBeGreaterThan((before.title_updated_at as Date).getTime());
    expect((await writeTitle(env.pool, chat.chatId, "a fallback", "fallback")).applied).toBe(false);
    expect((await writeTitle(env.pool, chat.chatId, "Mine", "user")).applied).toBe(true);
    expect((await writeTitle(env.pool, chat.chatId, "generated again", "generated")).applied).toBe(false);
    expect((await writeTitle(env.pool, chat.chatId, "Mine", "user")).applied).toBe(false);
    const renamed = await writeTitle(env.pool, chat.chatId, "Mine, renamed", "user");
    expect(renamed).toMatchObject({
      applied: true,
      chat: { title: "Mine, renamed", titleSource: "user", snapshotVersion: Number(before.snapshot_version) },
    });
  });

  it("rule 9: the pending-action deadline is now + 5 minutes, kept while in A, cleared on leaving", async () => {
    const now = new Date("2030-01-02T03:04:05.000Z");
    const store = new ChatStore(env.pool, { now: () => now });
    const chat = await makeChat(env, "R0", { owned: true });
    await apply(store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: [toolCall("call_deadline")] }] });
    const entered = await apply(store, enterRequiresAction, chat.chatId);
    expect(entered.chat.requiresActionDeadlineAt).toEqual(new Date(now.getTime() + 5 * 60_000));
    const queued = await apply(store, sendMessage, chat.chatId, { content: text("meanwhile"), busyBehavior: "queue" });
    expect(queued.state).toBe("A1");
    expect(queued.chat.requiresActionDeadlineAt).toEqual(entered.chat.requiresActionDeadlineAt);
    const done = await apply(store, completeRequiresAction, chat.chatId, { results: [{ tool_call_id: "call_deadline", output: "ok" }] });
    expect(done.chat.requiresActionDeadlineAt).toBeNull();
  });
});
