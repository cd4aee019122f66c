/**
 * The spec's three triggers (migrations/0001_triggers.sql) and the UNLOGGED heartbeat table.
 * Direct writes here are deliberate: they are what the triggers must refuse or absorb.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatRow, history, makeChat, makeEnv, text, type Env } from "./fixtures";
import {
  commitStep,
  deleteQueuedMessage,
  editMessage,
  promoteQueuedMessage,
  recordGenerationAttempt,
  recordRetryState,
  sendMessage,
} from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

const num = (v: unknown) => Number(v);

async function expectSqlError(sql: string, values: unknown[], message: RegExp): Promise<void> {
  await expect(env.pool.query(sql, values)).rejects.toThrow(message);
}

describe.concurrent("message revision and history version", () => {
  it("starts a created chat at snapshot 1, history 1, queue 0, with its messages at revision 1", async () => {
    const created = await env.store.create({ organizationId: env.owner.organizationId, ownerId: env.owner.userId, content: text("hi") });
    expect(created.chat).toMatchObject({
      snapshotVersion: 1,
      historyVersion: 1,
      queueVersion: 0,
      generationAttempt: 0,
      retryStateVersion: 0,
    });
    expect(created.value.messages.map((m) => m.revision)).toEqual([1]);
  });

  it("keeps history_version at 0 for a chat created without messages", async () => {
    const created = await env.store.create({ organizationId: env.owner.organizationId, ownerId: env.owner.userId, content: [] });
    expect(created.chat).toMatchObject({ snapshotVersion: 1, historyVersion: 0, status: "waiting" });
  });

  it("refuses an insert that assigns revision itself", async () => {
    const chat = await makeChat(env, "R0");
    await expectSqlError(
      `INSERT INTO chat_messages (chat_id, role, content, revision) VALUES ($1, 'assistant', '[]'::jsonb, 7)`,
      [chat.chatId],
      /chat_messages.revision must be assigned by trigger/,
    );
  });

  it("refuses an update that writes revision, and one that moves a message to another chat", async () => {
    const a = await makeChat(env, "R0");
    const b = await makeChat(env, "R0");
    await expectSqlError(
      `UPDATE chat_messages SET revision = revision + 1 WHERE id = $1`,
      [a.firstUserMessageId],
      /must be assigned by trigger/,
    );
    await expectSqlError(`UPDATE chat_messages SET chat_id = $2 WHERE id = $1`, [a.firstUserMessageId, b.chatId], /chat_id is immutable/);
  });

  it("sets history_version to the snapshot and resets generation_attempt when a message is inserted", async () => {
    const chat = await makeChat(env, "R0");
    await apply(env.store, recordGenerationAttempt, chat.chatId);
    const attempted = await apply(env.store, recordGenerationAttempt, chat.chatId);
    expect(attempted.chat.generationAttempt).toBe(2);
    const step = await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("answer") }] });
    expect(step.chat.historyVersion).toBe(step.chat.snapshotVersion);
    expect(step.chat.generationAttempt).toBe(0);
    expect(step.value.messages.map((m) => m.revision)).toEqual([step.chat.snapshotVersion]);
  });

  it("advances revision and history_version on a meaningful update (the soft delete of an edit)", async () => {
    const chat = await makeChat(env, "W");
    const edited = await apply(env.store, editMessage, chat.chatId, { messageId: chat.firstUserMessageId, content: text("again") });
    const rows = await history(env, chat.chatId);
    const deleted = rows.filter((m) => m.deleted);
    expect(deleted.map((m) => m.id)).toEqual(edited.value.deletedMessageIds);
    expect(deleted.every((m) => m.revision === edited.chat.snapshotVersion)).toBe(true);
    expect(edited.chat.historyVersion).toBe(edited.chat.snapshotVersion);
  });

  it("changes nothing on a no-op message update", async () => {
    const chat = await makeChat(env, "R0");
    await apply(env.store, recordGenerationAttempt, chat.chatId);
    const before = await chatRow(env, chat.chatId);
    const [message] = (await history(env, chat.chatId)).filter((m) => m.id === chat.firstUserMessageId);
    // A no-op update in a transaction that did bump the snapshot: the trigger must still do nothing.
    const client = await env.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(`UPDATE chats SET snapshot_version = snapshot_version + 1 WHERE id = $1`, [chat.chatId]);
      await client.query(`UPDATE chat_messages SET content = content, deleted = deleted WHERE id = $1`, [chat.firstUserMessageId]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    const after = await chatRow(env, chat.chatId);
    const [same] = (await history(env, chat.chatId)).filter((m) => m.id === chat.firstUserMessageId);
    expect(same!.revision).toBe(message!.revision);
    expect(num(after.history_version)).toBe(num(before.history_version));
    expect(num(after.generation_attempt)).toBe(1);
  });
});

describe.concurrent("queue version", () => {
  it("records inserts, reorders and deletes, and leaves non-queue transitions alone", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const q1 = await apply(env.store, sendMessage, chat.chatId, { content: text("one"), busyBehavior: "queue" });
    expect(q1.chat.queueVersion).toBe(q1.chat.snapshotVersion);
    const q2 = await apply(env.store, sendMessage, chat.chatId, { content: text("two"), busyBehavior: "queue" });
    expect(q2.chat.queueVersion).toBe(q2.chat.snapshotVersion);

    const step = await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("working") }] });
    expect(step.chat.queueVersion).toBe(q2.chat.snapshotVersion);

    // R1 --> I1: the promoted message moves to the head (an update of position).
    const promoted = await apply(env.store, promoteQueuedMessage, chat.chatId, { queuedMessageId: q2.value.queuedMessage!.id });
    expect(promoted.chat.queueVersion).toBe(promoted.chat.snapshotVersion);

    const deleted = await apply(env.store, deleteQueuedMessage, chat.chatId, { queuedMessageId: q1.value.queuedMessage!.id });
    expect(deleted.chat.queueVersion).toBe(deleted.chat.snapshotVersion);
  });

  it("ignores updates of columns outside the trigger's column list", async () => {
    const chat = await makeChat(env, "R1");
    await apply(env.store, commitStep, chat.chatId, {
      messages: [{ role: "assistant", content: text("moves the snapshot past the queue") }],
    });
    const before = await chatRow(env, chat.chatId);
    expect(num(before.queue_version)).toBeLessThan(num(before.snapshot_version));
    await env.pool.query(`UPDATE chat_queued_messages SET reasoning_effort = 'high' WHERE id = $1`, [chat.queue[0]]);
    expect(num((await chatRow(env, chat.chatId)).queue_version)).toBe(num(before.queue_version));
    await env.pool.query(`UPDATE chat_queued_messages SET content = '[]'::jsonb WHERE id = $1`, [chat.queue[0]]);
    expect(num((await chatRow(env, chat.chatId)).queue_version)).toBe(num(before.snapshot_version));
  });
});

describe.concurrent("retry state version", () => {
  it("stores a retry payload at the current snapshot and clears it when generation_attempt changes", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const recorded = await apply(env.store, recordRetryState, chat.chatId, { retryState: { attempt: 1, delay_ms: 500 } });
    expect(recorded.chat.retryState).toEqual({ attempt: 1, delay_ms: 500 });
    expect(recorded.chat.retryStateVersion).toBe(recorded.chat.snapshotVersion);

    const attempted = await apply(env.store, recordGenerationAttempt, chat.chatId);
    expect(attempted.chat.retryState).toBeNull();
    expect(attempted.chat.retryStateVersion).toBe(attempted.chat.snapshotVersion);

    // Already null: another attempt changes nothing about retry state.
    const again = await apply(env.store, recordGenerationAttempt, chat.chatId);
    expect(again.chat.retryStateVersion).toBe(attempted.chat.snapshotVersion);
  });

  it("keeps a retry payload recorded after the attempt in the same transaction", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const { recordGenerationAttempt, recordRetryState } = await import("../../src/chats/index");
    const both = await env.store.update(chat.chatId, async (tx) => {
      await recordGenerationAttempt(tx);
      await recordRetryState(tx, { retryState: { attempt: 2 } });
    });
    expect(both.chat.generationAttempt).toBe(1);
    expect(both.chat.retryState).toEqual({ attempt: 2 });
  });

  it("refuses a direct write of retry_state_version", async () => {
    const chat = await makeChat(env, "R0");
    await expectSqlError(
      `UPDATE chats SET retry_state_version = 99 WHERE id = $1`,
      [chat.chatId],
      /retry_state_version must be assigned by trigger/,
    );
  });
});

describe.concurrent("tables the spec writes by hand", () => {
  it("creates chat_heartbeats UNLOGGED with the spec's key and index", async () => {
    const { rows } = await env.pool.query<{ relpersistence: string }>(
      `SELECT relpersistence FROM pg_class WHERE relname = 'chat_heartbeats'`,
    );
    expect(rows[0]?.relpersistence).toBe("u");
    const idx = await env.pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'chat_heartbeats' ORDER BY indexname`);
    expect(idx.rows.map((r) => r.indexname)).toEqual(["chat_heartbeats_heartbeat_at_idx", "chat_heartbeats_pkey"]);
  });

  it("refuses two queued messages at one position", async () => {
    const chat = await makeChat(env, "R1");
    await expect(
      env.pool.query(`INSERT INTO chat_queued_messages (chat_id, position, content, created_by) VALUES ($1, 0, '[]'::jsonb, $2)`, [
        chat.chatId,
        env.owner.userId,
      ]),
    ).rejects.toThrow(/chat_queued_messages_chat_id_position_key/);
  });

  it("refuses a status outside the five", async () => {
    const chat = await makeChat(env, "W");
    await expectSqlError(`UPDATE chats SET status = 'paused' WHERE id = $1`, [chat.chatId], /chats_status_check/);
  });
});
