/**
 * What individual transitions do beyond where they land (the matrix covers landings): the rows
 * they write, what they return, and the checks they make inside their transaction.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransitionNotAllowedError } from "../../src/chatstate/index";
import {
  CHAT_CLEARED_TOOL,
  ChatStore,
  DEFAULT_CHAT_TITLE,
  FamilyArchivedError,
  fallbackTitle,
  InvalidTransitionInputError,
  NothingToClearError,
  NothingToCompactError,
  ParentArchivedError,
  QueueFullError,
  ToolResultsMismatchError,
} from "../../src/chats/index";
import { chatRow, history, makeChat, makeEnv, queueOf, snapshotRows, stateOf, text, toolCall, type Env } from "./fixtures";
import { ACTIVE_TAIL_SQL } from "../../src/chats/active-tail";
import {
  abandon,
  cancelRequiresAction,
  clearContext,
  commitStep,
  completeRequiresAction,
  editMessage,
  enterRequiresAction,
  finishError,
  finishInterruption,
  finishTurn,
  interrupt,
  promoteQueuedMessage,
  reconcileInvalidState,
  recordGenerationAttempt,
  requestCompaction,
  sendMessage,
} from "../../src/chats/transitions/index";
import { apply } from "./support/apply";
import { recordQueries } from "./support/record-queries";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

const createRoot = (extra: Partial<Parameters<ChatStore["create"]>[0]> = {}) =>
  env.store.create({ organizationId: env.owner.organizationId, ownerId: env.owner.userId, content: text("hello"), ...extra });

describe.concurrent("Create", () => {
  it("titles a chat from its first prompt, or New Chat when empty, or the caller's title as a user title", async () => {
    const long = "Please explain how the transition matrix of a chat state machine is tested against a real database";
    const fromPrompt = await createRoot({ content: text(`  ${long}\n`) });
    expect(fromPrompt.chat).toMatchObject({ titleSource: "fallback", title: fallbackTitle(text(long)) });
    expect(fromPrompt.chat.title.length).toBeLessThanOrEqual(80);
    expect(fromPrompt.chat.title.endsWith("…")).toBe(true);
    expect((await createRoot({ content: [] })).chat).toMatchObject({
      title: DEFAULT_CHAT_TITLE,
      titleSource: "fallback",
      status: "waiting",
    });
    expect((await createRoot({ title: " Mine " })).chat).toMatchObject({ title: "Mine", titleSource: "user" });
  });

  it("stores the system prompt and puts it first in history as a model-only system message", async () => {
    const created = await createRoot({
      systemPrompt: "Be brief.",
      modelConfigId: randomUUID(),
      reasoningEffort: "low",
      labels: { team: "core" },
    });
    expect(created.value.messages.map((m) => [m.role, m.modelOnly])).toEqual([
      ["system", true],
      ["user", false],
    ]);
    expect(created.chat).toMatchObject({ systemPrompt: "Be brief.", labels: { team: "core" }, lastReasoningEffort: "low" });
    expect(created.chat.lastModelConfigId).toBe(created.value.messages[1]!.modelConfigId);
  });

  it("makes a child part of its root's family, grandchildren included", async () => {
    const root = await createRoot();
    const child = await createRoot({ parentChatId: root.chat.id, content: [] });
    const grandchild = await createRoot({ parentChatId: child.chat.id, content: [] });
    expect(child.chat).toMatchObject({ parentChatId: root.chat.id, rootChatId: root.chat.id });
    expect(grandchild.chat).toMatchObject({ parentChatId: child.chat.id, rootChatId: root.chat.id });
  });

  it("refuses a child under an archived root, and writes nothing", async () => {
    const root = await makeChat(env, "XW");
    const before = await env.pool.query(`SELECT count(*)::int AS n FROM chats WHERE root_chat_id = $1`, [root.chatId]);
    await expect(createRoot({ parentChatId: root.chatId })).rejects.toBeInstanceOf(FamilyArchivedError);
    const after = await env.pool.query(`SELECT count(*)::int AS n FROM chats WHERE root_chat_id = $1`, [root.chatId]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("refuses an id that is taken, naming the state of the chat that has it", async () => {
    const chat = await makeChat(env, "E0");
    const error = await createRoot({ id: chat.chatId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransitionNotAllowedError);
    expect(error).toMatchObject({ transition: "Create", from: "E0" });
  });
});

describe.concurrent("SetArchived on a family", () => {
  it("archives and unarchives the root with every descendant", async () => {
    const root = await makeChat(env, "W");
    const child = await createRoot({ parentChatId: root.chatId, content: [] });
    const grandchild = await createRoot({ parentChatId: child.chat.id, content: [] });
    const archived = await env.store.setArchived(root.chatId, true);
    expect(archived.chats.map((c) => [c.id, c.archived])).toEqual([
      [root.chatId, true],
      [child.chat.id, true],
      [grandchild.chat.id, true],
    ]);
    expect(archived.statements).toBe(4);
    const restored = await env.store.setArchived(root.chatId, false);
    expect(restored.chats.every((c) => !c.archived)).toBe(true);
  });

  it("changes no chat when one member cannot be archived", async () => {
    const root = await makeChat(env, "W");
    const idle = await createRoot({ parentChatId: root.chatId, content: [] });
    const busy = await createRoot({ parentChatId: root.chatId, content: text("working") });
    const before = [
      await snapshotRows(env.pool, root.chatId),
      await snapshotRows(env.pool, idle.chat.id),
      await snapshotRows(env.pool, busy.chat.id),
    ];
    const error = await env.store.setArchived(root.chatId, true).catch((e: unknown) => e);
    expect(error).toMatchObject({ transition: "SetArchived", from: "R0" });
    expect([
      await snapshotRows(env.pool, root.chatId),
      await snapshotRows(env.pool, idle.chat.id),
      await snapshotRows(env.pool, busy.chat.id),
    ]).toEqual(before);
  });

  it("leaves descendants that already have the requested value alone", async () => {
    const root = await makeChat(env, "W");
    const child = await createRoot({ parentChatId: root.chatId, content: [] });
    const archivedChild = await env.store.setArchived(child.chat.id, true);
    expect(archivedChild.chats.map((c) => c.id)).toEqual([child.chat.id]);
    const family = await env.store.setArchived(root.chatId, true);
    expect(family.chats.map((c) => c.id)).toEqual([root.chatId]);
    expect(Number((await chatRow(env, child.chat.id)).snapshot_version)).toBe(archivedChild.chats[0]!.snapshotVersion);
  });

  it("refuses to unarchive a child while its parent is archived", async () => {
    const root = await makeChat(env, "W");
    const child = await createRoot({ parentChatId: root.chatId, content: [] });
    await env.store.setArchived(root.chatId, true);
    await expect(env.store.setArchived(child.chat.id, false)).rejects.toBeInstanceOf(ParentArchivedError);
    expect((await chatRow(env, child.chat.id)).archived).toBe(true);
  });
});

describe.concurrent("SendMessage", () => {
  it("from E1 appends m, promotes the old head with its queue id, and clears the error", async () => {
    const chat = await makeChat(env, "E1");
    const sent = await apply(env.store, sendMessage, chat.chatId, { content: text("new tail"), busyBehavior: "queue" });
    expect(sent.state).toBe("R1");
    expect(sent.value.queued).toBe(true);
    expect(sent.value.messages.map((m) => m.queuedMessageId)).toEqual([chat.queue[0]]);
    expect(sent.value.queuedMessage!.id).not.toBe(chat.queue[0]);
    expect((await queueOf(env, chat.chatId)).map((q) => q.id)).toEqual([sent.value.queuedMessage!.id]);
    expect(sent.chat.lastError).toBeNull();
  });

  it("with interrupt on an unowned running chat promotes m at once and answers it as the message", async () => {
    const chat = await makeChat(env, "R0");
    const sent = await apply(env.store, sendMessage, chat.chatId, { content: text("stop and do this"), busyBehavior: "interrupt" });
    expect(sent.applied.map((a) => a.transition)).toEqual(["SendMessage", "FinishInterruption"]);
    expect(sent.value).toMatchObject({ queued: false, queuedMessage: null });
    expect(sent.value.message!.content).toEqual(text("stop and do this"));
    expect(sent.value.message!.queuedMessageId).not.toBeNull();
    expect(sent.state).toBe("R0");
    expect(sent.chat.workerId).toBeNull();
  });

  it("refuses a queued message beyond the queue limit", async () => {
    const store = new ChatStore(env.pool, { maxQueueLength: 2 });
    const chat = await makeChat(env, "R1", { queued: 2 });
    const before = await snapshotRows(env.pool, chat.chatId);
    await expect(apply(store, sendMessage, chat.chatId, { content: text("third"), busyBehavior: "queue" })).rejects.toBeInstanceOf(
      QueueFullError,
    );
    expect(await snapshotRows(env.pool, chat.chatId)).toBe(before);
  });
});

describe.concurrent("EditMessage", () => {
  it("soft-deletes from k on, inserts the replacement, clears the queue and runs", async () => {
    const chat = await makeChat(env, "A1", { owned: true, queued: 2 });
    const edited = await apply(env.store, editMessage, chat.chatId, { messageId: chat.firstUserMessageId, content: text("rephrased") });
    const rows = await history(env, chat.chatId);
    expect(edited.state).toBe("R0");
    expect(edited.value.deletedQueuedMessageIds).toEqual(chat.queue);
    expect(rows.filter((m) => m.deleted).map((m) => m.id)).toEqual(edited.value.deletedMessageIds);
    expect(edited.value.deletedMessageIds[0]).toBe(chat.firstUserMessageId);
    expect(rows.filter((m) => !m.deleted).map((m) => m.id)).toEqual([edited.value.message.id]);
    expect(edited.value.message.content).toEqual(text("rephrased"));
    expect(edited.chat.requiresActionDeadlineAt).toBeNull();
  });

  it("refuses to edit a message that is not a user message", async () => {
    const chat = await makeChat(env, "W");
    const assistant = (await history(env, chat.chatId)).find((m) => m.role === "assistant")!;
    await expect(apply(env.store, editMessage, chat.chatId, { messageId: assistant.id, content: text("x") })).rejects.toBeInstanceOf(
      InvalidTransitionInputError,
    );
  });
});

describe.concurrent("queue operations", () => {
  it("PromoteQueuedMessage on R1 moves qid to the head, and FinishInterruption then promotes it", async () => {
    const chat = await makeChat(env, "R1", { owned: true, queued: 3 });
    const promoted = await apply(env.store, promoteQueuedMessage, chat.chatId, { queuedMessageId: chat.queue[2]! });
    expect(promoted.state).toBe("I1");
    expect(promoted.value.message).toBeNull();
    expect((await queueOf(env, chat.chatId)).map((q) => q.id)).toEqual([chat.queue[2], chat.queue[0], chat.queue[1]]);
    const finished = await apply(env.store, finishInterruption, chat.chatId, {
      partial: [{ role: "assistant", content: text("partial ans") }],
    });
    expect(finished.value.messages.map((m) => m.role)).toEqual(["assistant", "user"]);
    expect(finished.value.promoted!.message.queuedMessageId).toBe(chat.queue[2]);
    expect(finished.state).toBe("R1");
  });
});

describe.concurrent("Interrupt", () => {
  it("finishes the interruption in the same transaction when no worker owns the chat", async () => {
    const chat = await makeChat(env, "R1", { queued: 2 });
    const interrupted = await apply(env.store, interrupt, chat.chatId);
    expect(interrupted.applied.map((a) => `${a.transition}:${a.to}`)).toEqual(["Interrupt:I1", "FinishInterruption:R1"]);
    expect(interrupted.value.finished).toBe(true);
    expect(interrupted.chat.workerId).toBeNull();
    expect((await history(env, chat.chatId)).at(-1)!.queuedMessageId).toBe(chat.queue[0]);
  });

  it("answers outstanding tool calls before finishing an unowned interruption", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await apply(env.store, commitStep, chat.chatId, {
      messages: [{ role: "assistant", content: [toolCall("call_running", "read_file")] }],
    });
    await apply(env.store, abandon, chat.chatId);
    const interrupted = await apply(env.store, interrupt, chat.chatId);
    expect(interrupted.state).toBe("W");
    expect(interrupted.value.messages.map((m) => m.content[0])).toEqual([
      expect.objectContaining({ type: "tool-result", tool_call_id: "call_running", is_error: true }),
    ]);
  });
});

describe.concurrent("requires action", () => {
  it("EnterRequiresAction needs a pending dynamic tool call", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await expect(apply(env.store, enterRequiresAction, chat.chatId)).rejects.toBeInstanceOf(InvalidTransitionInputError);
  });

  it("CompleteRequiresAction inserts one tool message per result and refuses results that do not match", async () => {
    const chat = await makeChat(env, "A0", { owned: true });
    const mismatch = await apply(env.store, completeRequiresAction, chat.chatId, { results: [{ tool_call_id: "other", output: 1 }] }).catch(
      (e: unknown) => e,
    );
    expect(mismatch).toBeInstanceOf(ToolResultsMismatchError);
    expect(mismatch).toMatchObject({ problems: { missing: [chat.pendingCallId], unexpected: ["other"], duplicate: [] } });
    const done = await apply(env.store, completeRequiresAction, chat.chatId, {
      results: [{ tool_call_id: chat.pendingCallId!, output: { ok: true } }],
    });
    expect(done.value.messages.map((m) => m.content)).toEqual([
      [{ type: "tool-result", tool_call_id: chat.pendingCallId, tool_name: "ask_user", result: { ok: true }, is_error: false }],
    ]);
    expect(done.state).toBe("R0");
  });
});

describe.concurrent("RequestCompaction and ClearContext", () => {
  it("RequestCompaction sets the marker, grants a new history epoch, and refuses when there is nothing to compact", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await apply(env.store, recordGenerationAttempt, chat.chatId);
    const failed = await apply(env.store, finishError, chat.chatId, { error: "context overflow" });
    expect(failed.chat.generationAttempt).toBe(1);
    const requested = await apply(env.store, requestCompaction, chat.chatId);
    expect(requested.chat.historyVersion).toBe(requested.chat.snapshotVersion);
    expect(requested.chat.generationAttempt).toBe(0);
    expect(requested.chat.compactionRequestedAt).not.toBeNull();
    expect((await history(env, chat.chatId)).length).toBe(2);

    const empty = await createRoot({ content: [] });
    const before = await snapshotRows(env.pool, empty.chat.id);
    await expect(apply(env.store, requestCompaction, empty.chat.id)).rejects.toBeInstanceOf(NothingToCompactError);
    expect(await snapshotRows(env.pool, empty.chat.id)).toBe(before);
  });

  it("nothing is left to compact after a compaction boundary", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await apply(env.store, commitStep, chat.chatId, {
      consumeCompactionRequest: true,
      messages: [
        { role: "user", modelOnly: true, compressed: true, content: text("summary of it all") },
        {
          role: "assistant",
          compressed: true,
          content: [{ type: "tool-call", tool_call_id: "sum1", tool_name: "chat_summarized", args: {} }],
        },
        {
          role: "tool",
          compressed: true,
          content: [{ type: "tool-result", tool_call_id: "sum1", tool_name: "chat_summarized", result: {}, is_error: false }],
        },
      ],
    });
    await apply(env.store, finishTurn, chat.chatId);
    await expect(apply(env.store, requestCompaction, chat.chatId)).rejects.toBeInstanceOf(NothingToCompactError);
  });

  it("ClearContext inserts the boundary triplet, lands in waiting, and refuses a second clear", async () => {
    const chat = await makeChat(env, "E0", { owned: true });
    const cleared = await apply(env.store, clearContext, chat.chatId, { toolCallId: "clear_1" });
    expect(cleared.state).toBe("W");
    expect(cleared.chat.workerId).not.toBeNull();
    expect(cleared.value.messages.map((m) => [m.role, m.modelOnly, m.compressed])).toEqual([
      ["user", true, true],
      ["assistant", false, true],
      ["tool", false, true],
    ]);
    expect(cleared.value.messages[1]!.content[0]).toMatchObject({
      type: "tool-call",
      tool_name: CHAT_CLEARED_TOOL,
      tool_call_id: "clear_1",
    });
    expect(cleared.chat.historyVersion).toBe(cleared.chat.snapshotVersion);
    await expect(apply(env.store, clearContext, chat.chatId)).rejects.toBeInstanceOf(NothingToClearError);
    // A new message after the boundary makes the chat clearable again.
    await apply(env.store, sendMessage, chat.chatId, { content: text("fresh start"), busyBehavior: "queue" });
    await apply(env.store, finishTurn, chat.chatId);
    expect((await apply(env.store, clearContext, chat.chatId)).state).toBe("W");
  });

  it("ClearContext is refused with a queue (E1) and changes nothing", async () => {
    const chat = await makeChat(env, "E1");
    const before = await snapshotRows(env.pool, chat.chatId);
    await expect(apply(env.store, clearContext, chat.chatId)).rejects.toMatchObject({ transition: "ClearContext", from: "E1" });
    expect(await snapshotRows(env.pool, chat.chatId)).toBe(before);
  });
});

describe.concurrent("CommitStep and FinishError", () => {
  it("CommitStep refuses user-visible user messages and empty steps", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await expect(
      apply(env.store, commitStep, chat.chatId, { messages: [{ role: "user", content: text("sneaky") }] }),
    ).rejects.toBeInstanceOf(InvalidTransitionInputError);
    await expect(apply(env.store, commitStep, chat.chatId, { messages: [] })).rejects.toBeInstanceOf(InvalidTransitionInputError);
    expect(await stateOf(env.pool, chat.chatId)).toBe("R0");
  });

  it("FinishError replaces the stored error", async () => {
    const chat = await makeChat(env, "W");
    const first = await apply(env.store, finishError, chat.chatId, { error: "first" });
    expect(first.chat.lastError).toBe("first");
    await apply(env.store, sendMessage, chat.chatId, { content: text("retry"), busyBehavior: "queue" });
    const second = await apply(env.store, finishError, chat.chatId, { error: "second" });
    expect(second.chat.lastError).toBe("second");
  });
});

describe.concurrent("ReconcileInvalidState", () => {
  it("resets an invalid chat to error, answers pending dynamic calls and keeps the queue", async () => {
    const chat = await makeChat(env, "A1", { owned: true });
    await env.pool.query(`UPDATE chats SET archived = true WHERE id = $1`, [chat.chatId]);
    expect(await stateOf(env.pool, chat.chatId)).toBe("Invalid");
    const reconciled = await apply(env.store, reconcileInvalidState, chat.chatId);
    expect(reconciled.state).toBe("E1");
    expect(reconciled.chat).toMatchObject({ archived: false, status: "error", requiresActionDeadlineAt: null });
    expect(reconciled.chat.lastError).toMatch(/invalid state/);
    expect(reconciled.value.messages.map((m) => m.content[0])).toEqual([
      expect.objectContaining({ tool_call_id: chat.pendingCallId, is_error: true }),
    ]);
    expect((await queueOf(env, chat.chatId)).map((q) => q.id)).toEqual(chat.queue);
  });
});

/** A waiting chat with two finished turns: user, assistant, user, assistant. */
async function twoTurns() {
  const chat = await makeChat(env, "W");
  const [first, firstReply] = (await history(env, chat.chatId)).map((m) => m.id);
  const sent = await apply(env.store, sendMessage, chat.chatId, { content: text("second"), busyBehavior: "queue" });
  const step = await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("second reply") }] });
  await apply(env.store, finishTurn, chat.chatId);
  return { chatId: chat.chatId, first: first!, firstReply: firstReply!, second: sent.value.message!.id, reply: step.value.messages[0]!.id };
}

// Not concurrent: recordQueries sees every transaction on the pool.
describe("round trips of transitions that write history", () => {
  it("Create with a first message takes two: the chat's INSERT with BEGIN, then the history's with the commit write and COMMIT", async () => {
    const rec = recordQueries(env.pool);
    const created = await createRoot({ content: text("first"), systemPrompt: "be brief" }).finally(rec.stop);
    expect(rec.sent).toHaveLength(2);
    expect(rec.sent[0]).toMatch(/^BEGIN;\nINSERT INTO chats/);
    expect(rec.sent[1]).toMatch(/^INSERT INTO chat_messages[\s\S]*COMMIT$/);
    expect(created.state).toBe("R0");
    const stored = await history(env, created.chat.id);
    expect(created.value.messages.map((m) => [m.id, m.role])).toEqual(stored.map((m) => [m.id, m.role]));
    expect(stored.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("EditMessage of a later user message from W takes three: the row lock, the cut with its tail, the INSERT with the commit write", async () => {
    const { chatId, second, reply } = await twoTurns();
    const rec = recordQueries(env.pool);
    const edited = await apply(env.store, editMessage, chatId, { messageId: second, content: text("second, rephrased") }).finally(rec.stop);
    expect(rec.sent).toHaveLength(3);
    expect(rec.sent[0]).toMatch(/^BEGIN;\nUPDATE chats SET snapshot_version/);
    expect(rec.sent[1]).toMatch(/^WITH target AS/);
    expect(rec.sent[2]).toMatch(/^INSERT INTO chat_messages[\s\S]*COMMIT$/);
    expect(edited.state).toBe("R0");
    expect(edited.value.deletedMessageIds).toEqual([second, reply]);
    const active = (await history(env, chatId)).filter((m) => !m.deleted);
    expect(active.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(active.at(-1)).toMatchObject({ id: edited.value.message.id, content: text("second, rephrased") });
    expect(edited.value.messages.map((m) => m.id)).toEqual([edited.value.message.id]);
  });

  it("EditMessage leaves the transaction's cached tail equal to the tail read back, with or without an assistant message before the cut", async () => {
    for (const cutAt of ["first", "second"] as const) {
      const turns = await twoTurns();
      const { value } = await env.store.update(turns.chatId, async (tx) => {
        const edited = await editMessage(tx, { messageId: turns[cutAt], content: text("again") });
        const cached = (await tx.inserted.activeTail()).map((m) => m.id);
        const read = (await tx.query<{ id: string }>(ACTIVE_TAIL_SQL, [turns.chatId])).map((m) => Number(m.id)); // bigint: a string
        return { edited, cached, read };
      });
      expect(value.cached).toEqual(value.read);
      expect(value.read).toEqual(cutAt === "first" ? [] : [turns.firstReply, value.edited.message.id]);
    }
  });

  it("a step that ends in requires_action takes two: the pending calls are decided on the step's messages as written", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const callId = `call_${randomUUID()}`;
    const rec = recordQueries(env.pool);
    const entered = await env.store
      .update(chat.chatId, async (tx) => {
        await commitStep(tx, { messages: [{ role: "assistant", content: [{ type: "text", text: "need input" }, toolCall(callId)] }] });
        return enterRequiresAction(tx);
      })
      .finally(rec.stop);
    expect(rec.sent).toHaveLength(2);
    expect(rec.sent[1]).toMatch(/^INSERT INTO chat_messages[\s\S]*COMMIT$/);
    expect(entered.state).toBe("A0");
    expect(entered.value.deadline).toEqual(entered.chat.requiresActionDeadlineAt);
    expect((await history(env, chat.chatId)).at(-1)?.content).toContainEqual(toolCall(callId));
  });

  it("a turn's last step that promotes the queue head takes two with the head read by the lock, three without", async () => {
    for (const prefetchQueueHead of [true, false]) {
      const chat = await makeChat(env, "R1", { owned: true, queued: 2 });
      const rec = recordQueries(env.pool);
      const finished = await env.store
        .update(
          chat.chatId,
          async (tx) => {
            await commitStep(tx, { messages: [{ role: "assistant", content: text("done") }] });
            return finishTurn(tx);
          },
          { prefetchQueueHead },
        )
        .finally(rec.stop);
      if (prefetchQueueHead) {
        // The row lock reads the head; the step's INSERT and the promotion ride with the commit write.
        expect(rec.sent).toHaveLength(2);
        expect(rec.sent[0]).toMatch(/ AS queue_head$/);
        expect(rec.sent[1]).toMatch(/^INSERT INTO chat_messages[\s\S]*WITH target AS[\s\S]*COMMIT$/);
      } else {
        expect(rec.sent).toHaveLength(3);
        expect(rec.sent[1]).toMatch(/^INSERT INTO chat_messages[\s\S]*WITH target AS/);
      }
      expect(finished.state).toBe("R1");
      expect(finished.value.promoted?.queued.id).toBe(chat.queue[0]);
      const tail = (await history(env, chat.chatId)).slice(-2);
      expect(tail.map((m) => [m.role, m.content])).toEqual([
        ["assistant", text("done")],
        ["user", text("queued 0")],
      ]);
      expect(tail[1]?.id).toBe(finished.value.promoted?.message.id);
      expect(tail[1]?.queuedMessageId).toBe(chat.queue[0]);
      expect((await queueOf(env, chat.chatId)).map((q) => [q.id, q.position])).toEqual([[chat.queue[1], 0]]);
    }
  });

  it("FinishInterruption with a partial step takes two from I0, the cancellation of a call it left open included", async () => {
    for (const open of [false, true]) {
      const chat = await makeChat(env, "I0", { owned: true });
      const callId = `call_${randomUUID()}`;
      const content = open ? [{ type: "text" as const, text: "partial ans" }, toolCall(callId)] : text("partial ans");
      const rec = recordQueries(env.pool);
      const finished = await apply(env.store, finishInterruption, chat.chatId, { partial: [{ role: "assistant", content }] }).finally(
        rec.stop,
      );
      // The row lock with the tail; the partial's INSERT, and the open call's cancellation (judged
      // on the partial as written), ride with the commit write.
      expect(rec.sent).toHaveLength(2);
      const inserts = open
        ? /^INSERT INTO chat_messages[\s\S]*INSERT INTO chat_messages[\s\S]*COMMIT$/
        : /^INSERT INTO chat_messages[\s\S]*COMMIT$/;
      expect(rec.sent[1]).toMatch(inserts);
      expect(finished.state).toBe("W");
      const stored = (await history(env, chat.chatId)).slice(open ? -2 : -1);
      expect(finished.value.messages.map((m) => m.id)).toEqual(stored.map((m) => m.id));
      expect(stored.map((m) => m.role)).toEqual(open ? ["assistant", "tool"] : ["assistant"]);
      if (open) expect(stored[1]?.content[0]).toMatchObject({ type: "tool-result", tool_call_id: callId, is_error: true });
    }
  });

  it("CancelRequiresAction takes two from A0: the row lock with the tail, the cancellations' INSERT with the commit write", async () => {
    const chat = await makeChat(env, "A0", { owned: true });
    const rec = recordQueries(env.pool);
    const cancelled = await apply(env.store, cancelRequiresAction, chat.chatId).finally(rec.stop);
    expect(rec.sent).toHaveLength(2);
    expect(rec.sent[1]).toMatch(/^INSERT INTO chat_messages[\s\S]*COMMIT$/);
    expect(cancelled.state).toBe("R0");
    const stored = (await history(env, chat.chatId)).at(-1);
    expect(cancelled.value.messages.map((m) => m.id)).toEqual([stored?.id]);
    expect(stored?.content[0]).toMatchObject({ type: "tool-result", tool_call_id: chat.pendingCallId, is_error: true });
  });

  it("a client's tool results take two from A1: the row lock with BEGIN and the tail, then the INSERT with the commit write and COMMIT", async () => {
    const chat = await makeChat(env, "A1", { owned: true });
    const rec = recordQueries(env.pool);
    const done = await apply(env.store, completeRequiresAction, chat.chatId, {
      results: [{ tool_call_id: chat.pendingCallId!, output: "yes" }],
    }).finally(rec.stop);
    expect(rec.sent).toHaveLength(2);
    expect(rec.sent[0]).toMatch(/^BEGIN;\nUPDATE chats SET snapshot_version[\s\S]* AS tail,[\s\S]* AS queue_head$/);
    expect(rec.sent[1]).toMatch(/^INSERT INTO chat_messages[\s\S]*COMMIT$/);
    expect(done.state).toBe("R1");
    expect((await queueOf(env, chat.chatId)).map((q) => q.id)).toEqual(chat.queue);
    const stored = (await history(env, chat.chatId)).at(-1);
    expect(done.value.messages.map((m) => m.id)).toEqual([stored?.id]);
    expect(stored?.content).toEqual([
      { type: "tool-result", tool_call_id: chat.pendingCallId, tool_name: "ask_user", result: "yes", is_error: false },
    ]);
  });
});
