/**
 * The stream loop's database reads (src/stream/sync-reads.ts) against the real Postgres: what one
 * Sync reads for given cursors, that it reads it in one read-only repeatable-read transaction, and
 * the sync poller's version query. Every chat is the test's own, so files can run side by side.
 */
import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listMessages, listQueue } from "../../src/chats/index";
import { readSyncHints, readSyncSnapshot } from "../../src/stream/sync-reads";
import { errorPayloadOf } from "../../src/wire/chat-error";
import { messageToWire, queuedToWire } from "../../src/wire/chat-wire";
import type { SyncSnapshot } from "../../src/stream/sync-snapshot";
import { NULL_CURSORS, type StreamCursors } from "../../src/stream/sync-state";
import { chatRow, DYNAMIC_TOOL, LOCAL_TOOL, makeChat, makeEnv, text, toolCall, type Env } from "./fixtures";
import {
  clearContext,
  commitStep,
  editMessage,
  enterRequiresAction,
  finishTurn,
  recordRetryState,
  sendMessage,
} from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

/** The client-visible history as the stream sends it. */
async function visibleHistory(chatId: string) {
  return (await listMessages(env.pool, chatId)).map((m) => messageToWire(m));
}

async function queueWire(chatId: string) {
  return (await listQueue(env.pool, chatId)).map(queuedToWire);
}

/** Cursors after a loop applied `snap` (the versions it saves), action_required included if it was sent. */
function cursorsAfter(snap: SyncSnapshot): StreamCursors {
  const c = snap.chat;
  return {
    ...NULL_CURSORS,
    snapshotVersion: c.snapshotVersion,
    historyVersion: c.historyVersion,
    queueVersion: c.queueVersion,
    retryStateVersion: c.retryStateVersion,
    status: c.status,
    workerId: c.workerId,
    generationAttempt: c.generationAttempt,
    actionRequiredHistoryVersion: c.status === "requires_action" ? c.historyVersion : 0,
  };
}

async function read(chatId: string, cursors: Readonly<StreamCursors> = NULL_CURSORS): Promise<SyncSnapshot> {
  const snap = await readSyncSnapshot(env.pool, chatId, cursors);
  if (snap === null) throw new Error(`chat ${chatId} is missing`);
  return snap;
}

interface SpyOptions {
  /** Runs before the statement with this index (0 = BEGIN) is sent, on the transaction's client. */
  before?: (index: number, client: PoolClient) => Promise<void>;
}

/** A Pool whose one client records its statements and whether it was released. */
function spyPool(pool: Pool, options: SpyOptions = {}) {
  const statements: string[] = [];
  const released: unknown[] = [];
  const spy = {
    statements,
    released,
    pool: {
      connect: async () => {
        const client = await pool.connect();
        return new Proxy(client, {
          get(target, prop, receiver) {
            if (prop === "query") {
              return async (text: string, values?: unknown[]) => {
                const index = statements.length;
                statements.push(text.replace(/\s+/g, " ").trim());
                await options.before?.(index, target);
                return target.query(text, values);
              };
            }
            if (prop === "release") {
              return (err?: unknown) => {
                released.push(err ?? false);
                target.release(err as Error | boolean | undefined);
              };
            }
            return Reflect.get(target, prop, receiver);
          },
        });
      },
    } as unknown as Pool,
  };
  return spy;
}

describe.concurrent("readSyncSnapshot", () => {
  it("is null for a chat that does not exist", async () => {
    expect(await readSyncSnapshot(env.pool, randomUUID(), NULL_CURSORS)).toBeNull();
  });

  it("reads everything from the null cursors: the chat row, the history in order, the queue", async () => {
    const chat = await makeChat(env, "R1", { owned: true, queued: 2 });
    const row = await chatRow(env, chat.chatId);
    const snap = await read(chat.chatId);
    expect(snap.chat).toEqual({
      snapshotVersion: Number(row.snapshot_version),
      historyVersion: Number(row.history_version),
      queueVersion: Number(row.queue_version),
      retryStateVersion: Number(row.retry_state_version),
      generationAttempt: Number(row.generation_attempt),
      status: "running",
      workerId: row.worker_id,
      retryState: null,
      error: null,
    });
    expect(snap.messages).toEqual({ refresh: false, rows: await visibleHistory(chat.chatId) });
    expect(snap.messages!.rows.map((m) => [m.role, m.content])).toEqual([
      ["user", text("hello")],
      ["assistant", text("hi")],
    ]);
    expect(snap.messages!.rows.every((m) => !("deleted" in m))).toBe(true);
    expect(snap.queue).toEqual(await queueWire(chat.chatId));
    expect(snap.queue!.map((q) => q.id)).toEqual(chat.queue);
    expect(snap.pendingToolCalls).toBeNull();
  });

  it("carries the retry state and the persisted error", async () => {
    const running = await makeChat(env, "R0", { owned: true });
    await apply(env.store, recordRetryState, running.chatId, { retryState: { attempt: 1, error: "overloaded" } });
    expect((await read(running.chatId)).chat).toMatchObject({
      status: "running",
      retryState: { attempt: 1, error: "overloaded" },
      error: null,
    });

    const errored = await makeChat(env, "E0");
    expect((await read(errored.chatId)).chat).toMatchObject({ status: "error", error: errorPayloadOf("model failed") });
    expect(errorPayloadOf("model failed")).toEqual({
      message: "model failed",
      detail: null,
      kind: "generic",
      reason: "generation_failed",
      provider: null,
      retryable: false,
      status_code: null,
    });
    expect(errorPayloadOf(null)).toBeNull();
  });

  it("reads nothing more when the snapshot is not newer than the cursors", async () => {
    const chat = await makeChat(env, "A1", { owned: true });
    const first = await read(chat.chatId);
    const spy = spyPool(env.pool);
    const stale = await readSyncSnapshot(spy.pool, chat.chatId, { ...NULL_CURSORS, snapshotVersion: first.chat.snapshotVersion });
    expect(stale).toEqual({ chat: first.chat, messages: null, queue: null, pendingToolCalls: null });
    expect(spy.statements).toHaveLength(3); // BEGIN, the chat row, COMMIT
    expect(spy.released).toEqual([false]);
  });

  it("reads no messages when the cursor is at the current history version", async () => {
    const chat = await makeChat(env, "R1", { owned: true });
    const first = await read(chat.chatId);
    const snap = await read(chat.chatId, { ...NULL_CURSORS, historyVersion: first.chat.historyVersion });
    expect(snap.messages).toBeNull();
    expect(snap.queue).toEqual(first.queue);
  });

  it("reads only the rows newer than the cursor", async () => {
    const chat = await makeChat(env, "W");
    const before = await read(chat.chatId);
    const sent = await apply(env.store, sendMessage, chat.chatId, { content: text("next"), busyBehavior: "queue" });
    const snap = await read(chat.chatId, cursorsAfter(before));
    expect(snap.chat.historyVersion).toBeGreaterThan(before.chat.historyVersion);
    expect(snap.messages).toEqual({ refresh: false, rows: sent.value.messages.map((m) => messageToWire(m)) });
    expect(snap.messages!.rows.map((m) => m.content)).toEqual([text("next")]);
    expect(snap.queue).toBeNull();
  });

  it("refreshes the whole history after an edit soft-deleted rows", async () => {
    const chat = await makeChat(env, "W");
    await apply(env.store, sendMessage, chat.chatId, { content: text("second"), busyBehavior: "queue" });
    await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("second answer") }] });
    await apply(env.store, finishTurn, chat.chatId);
    const before = await read(chat.chatId);
    expect(before.messages!.rows).toHaveLength(4);
    const secondId = before.messages!.rows[2]!.id;

    await apply(env.store, editMessage, chat.chatId, { messageId: secondId, content: text("second, edited") });
    const snap = await read(chat.chatId, cursorsAfter(before));
    const current = await visibleHistory(chat.chatId);
    expect(snap.messages).toEqual({ refresh: true, rows: current });
    expect(current.map((m) => m.content)).toEqual([text("hello"), text("hi"), text("second, edited")]);
    // The rows before the edit point keep their ids: the refresh resends them.
    expect(current.slice(0, 2).map((m) => m.id)).toEqual(before.messages!.rows.slice(0, 2).map((m) => m.id));

    // Once past the edit, new rows are incremental again.
    await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("edited answer") }] });
    const after = await read(chat.chatId, cursorsAfter(snap));
    expect(after.messages!.refresh).toBe(false);
    expect(after.messages!.rows.map((m) => m.content)).toEqual([text("edited answer")]);
  });

  it("reads the queue only when queue_version is newer than the cursor", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const before = await read(chat.chatId);
    // Never queued: queue_version is still 0, not newer than the null cursor.
    expect(before.chat.queueVersion).toBe(0);
    expect(before.queue).toBeNull();
    const queued = await apply(env.store, sendMessage, chat.chatId, { content: text("later"), busyBehavior: "queue" });
    const snap = await read(chat.chatId, cursorsAfter(before));
    expect(snap.messages).toBeNull();
    expect(snap.queue).toEqual([queuedToWire(queued.value.queuedMessage!)]);

    await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("more") }] });
    const next = await read(chat.chatId, cursorsAfter(snap));
    expect(next.queue).toBeNull();
    expect(next.messages!.rows.map((m) => m.content)).toEqual([text("more")]);
  });

  it("reads the pending dynamic tool calls in requires_action, once per history version", async () => {
    const chat = await makeChat(env, "A0", { owned: true });
    const snap = await read(chat.chatId);
    expect(snap.chat.status).toBe("requires_action");
    expect(snap.pendingToolCalls).toEqual([{ tool_call_id: chat.pendingCallId, tool_name: DYNAMIC_TOOL, args: '{"question":"proceed?"}' }]);

    const sent = await read(chat.chatId, cursorsAfter(snap));
    expect(sent.pendingToolCalls).toBeNull();
    // A cursor behind the history version (e.g. a fresh loop that only saw older history) reads them again.
    const behind = await read(chat.chatId, {
      ...cursorsAfter(snap),
      snapshotVersion: 0,
      actionRequiredHistoryVersion: snap.chat.historyVersion - 1,
    });
    expect(behind.pendingToolCalls).toEqual(snap.pendingToolCalls);
  });

  it("lists only dynamic tool calls that are still unanswered", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await apply(env.store, commitStep, chat.chatId, {
      messages: [
        { role: "assistant", content: [toolCall("call_answered"), toolCall("call_local", LOCAL_TOOL), toolCall("call_open")] },
        {
          role: "tool",
          content: [{ type: "tool-result", tool_call_id: "call_answered", tool_name: DYNAMIC_TOOL, result: "yes", is_error: false }],
        },
      ],
    });
    await apply(env.store, enterRequiresAction, chat.chatId);
    const snap = await read(chat.chatId);
    expect(snap.pendingToolCalls).toEqual([{ tool_call_id: "call_open", tool_name: DYNAMIC_TOOL, args: '{"question":"proceed?"}' }]);
    // Not in requires_action: nothing is read, even with calls pending.
    const running = await makeChat(env, "R0", { owned: true });
    await apply(env.store, commitStep, running.chatId, { messages: [{ role: "assistant", content: [toolCall("call_x")] }] });
    expect((await read(running.chatId)).pendingToolCalls).toBeNull();
  });

  it("never returns model-only rows", async () => {
    const created = await env.store.create({
      organizationId: env.owner.organizationId,
      ownerId: env.owner.userId,
      content: text("hello"),
      systemPrompt: "be brief",
    });
    const chatId = created.chat.id;
    await apply(env.store, commitStep, chatId, { messages: [{ role: "assistant", content: text("hi") }] });
    await apply(env.store, finishTurn, chatId);
    const all = await listMessages(env.pool, chatId, { includeModelOnly: true });
    expect(all.filter((m) => m.modelOnly).map((m) => m.role)).toEqual(["system"]);
    const first = await read(chatId);
    expect(first.messages!.rows.map((m) => m.role)).toEqual(["user", "assistant"]);

    // ClearContext: a model-only sentinel plus a visible tool-call/result pair.
    await apply(env.store, clearContext, chatId);
    const snap = await read(chatId, cursorsAfter(first));
    const hidden = new Set((await listMessages(env.pool, chatId, { includeModelOnly: true })).filter((m) => m.modelOnly).map((m) => m.id));
    expect(hidden.size).toBe(2);
    expect(snap.messages!.refresh).toBe(false);
    expect(snap.messages!.rows.map((m) => m.role)).toEqual(["assistant", "tool"]);
    expect(snap.messages!.rows.some((m) => hidden.has(m.id))).toBe(false);

    // A refresh leaves them out too.
    const userRow = first.messages!.rows[0]!;
    await apply(env.store, editMessage, chatId, { messageId: userRow.id, content: text("hello again") });
    const refreshed = await read(chatId, cursorsAfter(snap));
    expect(refreshed.messages!.refresh).toBe(true);
    expect(refreshed.messages!.rows).toEqual(await visibleHistory(chatId));
    expect(refreshed.messages!.rows.some((m) => hidden.has(m.id))).toBe(false);
  });

  it("reads in one read-only repeatable-read transaction on one client", async () => {
    const chat = await makeChat(env, "R1", { owned: true });
    const settings: Record<string, unknown>[] = [];
    const spy = spyPool(env.pool, {
      before: async (index, client) => {
        if (index === 1) {
          const { rows } = await client.query(
            `SELECT current_setting('transaction_isolation') AS isolation, current_setting('transaction_read_only') AS read_only`,
          );
          settings.push(rows[0]!);
        }
      },
    });
    const snap = await readSyncSnapshot(spy.pool, chat.chatId, NULL_CURSORS);
    expect(snap!.messages!.rows).toHaveLength(2);
    expect(spy.statements[0]).toBe("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    expect(spy.statements.at(-1)).toBe("COMMIT");
    expect(spy.statements).toHaveLength(5); // BEGIN, chat, messages, queue, COMMIT
    expect(settings).toEqual([{ isolation: "repeatable read", read_only: "on" }]);
    expect(spy.released).toEqual([false]);
  });

  it("does not see a write committed by another connection between its reads", async () => {
    const chat = await makeChat(env, "W");
    const spy = spyPool(env.pool, {
      // After the chat row was read (statement 1), commit a new message and a queue change elsewhere.
      before: async (index) => {
        if (index === 2) {
          await apply(env.store, sendMessage, chat.chatId, { content: text("racing"), busyBehavior: "queue" });
        }
      },
    });
    const snap = await readSyncSnapshot(spy.pool, chat.chatId, NULL_CURSORS);
    expect(snap!.messages!.rows.map((m) => m.content)).toEqual([text("hello"), text("hi")]);
    expect(Math.max(...snap!.messages!.rows.map((m) => m.revision))).toBeLessThanOrEqual(snap!.chat.historyVersion);
    // The write did commit: a new read sees it.
    const fresh = await read(chat.chatId, cursorsAfter(snap!));
    expect(fresh.messages!.rows.map((m) => m.content)).toEqual([text("racing")]);
  });

  it("rolls back and releases the client when a read fails", async () => {
    const chat = await makeChat(env, "R1", { owned: true });
    const spy = spyPool(env.pool, {
      before: async (index) => {
        if (index === 2) throw new Error("connection lost");
      },
    });
    await expect(readSyncSnapshot(spy.pool, chat.chatId, NULL_CURSORS)).rejects.toThrow("connection lost");
    expect(spy.statements.at(-1)).toBe("ROLLBACK");
    expect(spy.released).toEqual([false]);
  });
});

describe.concurrent("readSyncHints", () => {
  it("returns every hint field for the chats that exist and omits the others", async () => {
    const a = await makeChat(env, "R1", { owned: true });
    const b = await makeChat(env, "E0");
    const missing = randomUUID();
    const hints = await readSyncHints(env.pool, [a.chatId, missing, b.chatId]);
    expect([...hints.keys()].sort()).toEqual([a.chatId, b.chatId].sort());
    for (const chatId of [a.chatId, b.chatId]) {
      const row = await chatRow(env, chatId);
      expect(hints.get(chatId)).toEqual({
        snapshotVersion: Number(row.snapshot_version),
        historyVersion: Number(row.history_version),
        queueVersion: Number(row.queue_version),
        retryStateVersion: Number(row.retry_state_version),
        status: row.status,
        workerId: row.worker_id,
        generationAttempt: Number(row.generation_attempt),
      });
    }
    expect(hints.get(a.chatId)!.workerId).toEqual(expect.any(String));
    expect(hints.get(b.chatId)!.workerId).toBeNull();
    expect(typeof hints.get(a.chatId)!.snapshotVersion).toBe("number");
  });

  it("returns an empty map for no chats", async () => {
    expect(await readSyncHints(env.pool, [])).toEqual(new Map());
    expect(await readSyncHints(env.pool, [randomUUID()])).toEqual(new Map());
  });
});
