/**
 * "Notifications are post-commit, best-effort, and versioned": chat:update after every committed
 * transaction with the committed values, chat:ownership only for a runnable chat without a fresh
 * lease, and nothing at all for a transaction that rolled back.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, ChatStore, commitStep, NothingToClearError, type ChatUpdatePayload } from "../../src/chats/index";
import { chatRow, makeChat, makeEnv, RecordingNotifier, snapshotRows, text, type Env } from "./fixtures";
import { clearContext, finishTurn, recordGenerationAttempt } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

function payloadOf(row: Record<string, unknown>): ChatUpdatePayload {
  return {
    chat_id: String(row.id),
    owner_id: String(row.owner_id),
    snapshot_version: Number(row.snapshot_version),
    worker_id: (row.worker_id as string | null) ?? null,
    runner_id: (row.runner_id as string | null) ?? null,
    history_version: Number(row.history_version),
    queue_version: Number(row.queue_version),
    retry_state_version: Number(row.retry_state_version),
    generation_attempt: Number(row.generation_attempt),
    status: row.status as ChatUpdatePayload["status"],
    archived: row.archived as boolean,
    parent_chat_id: (row.parent_chat_id as string | null) ?? null,
  };
}

describe.concurrent("notifications", () => {
  it("publishes chat:update only after COMMIT", async () => {
    const events: string[] = [];
    const store = new ChatStore(env.pool, {
      notifier: {
        chatUpdated: (p) => {
          events.push(`update ${p.snapshot_version}`);
        },
        ownershipHint: () => {
          events.push("hint");
        },
      },
      observe: (t) => events.push(t.committed ? "commit" : "rollback"),
    });
    const chat = await makeChat(env, "R0", { owned: true });
    const step = await apply(store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("done") }] });
    expect(events).toEqual(["commit", `update ${step.chat.snapshotVersion}`]);
  });

  it("carries the committed values, triggers included, once per bundle", async () => {
    const chat = await makeChat(env, "R0");
    const published = env.notifier.updatesFor(chat.chatId).length;
    const worker = { workerId: randomUUID(), runnerId: randomUUID() };
    await env.store.update(chat.chatId, async (tx) => {
      await acquire(tx, worker);
      await commitStep(tx, { messages: [{ role: "assistant", content: text("bundled") }] });
    });
    const updates = env.notifier.updatesFor(chat.chatId).slice(published);
    expect(updates).toEqual([payloadOf(await chatRow(env, chat.chatId))]);
    expect(updates[0]).toMatchObject({ worker_id: worker.workerId, runner_id: worker.runnerId, status: "running" });
    expect(updates[0]!.history_version).toBe(updates[0]!.snapshot_version);
  });

  it("publishes nothing when the transaction rolls back, and leaves the rows as they were", async () => {
    const chat = await makeChat(env, "W");
    await apply(env.store, clearContext, chat.chatId);
    const before = await snapshotRows(env.pool, chat.chatId);
    const published = env.notifier.updatesFor(chat.chatId).length;
    await expect(apply(env.store, clearContext, chat.chatId)).rejects.toBeInstanceOf(NothingToClearError);
    await expect(
      env.store.update(chat.chatId, async (tx) => {
        await commitStep(tx, { messages: [{ role: "assistant", content: text("never") }] }).catch(() => undefined);
        throw new Error("caller gave up");
      }),
    ).rejects.toThrow("caller gave up");
    expect(env.notifier.updatesFor(chat.chatId).length).toBe(published);
    expect(await snapshotRows(env.pool, chat.chatId)).toBe(before);
  });

  it("hints ownership for a runnable chat nobody owns", async () => {
    const created = await env.store.create({ organizationId: env.owner.organizationId, ownerId: env.owner.userId, content: text("go") });
    expect(env.notifier.hintsFor(created.chat.id)).toEqual([{ chat_id: created.chat.id, snapshot_version: 1 }]);
  });

  it("does not hint for a runnable chat whose owner holds a fresh lease", async () => {
    const chat = await makeChat(env, "R0");
    const hints = env.notifier.hintsFor(chat.chatId).length;
    await apply(env.store, acquire, chat.chatId, { workerId: randomUUID(), runnerId: randomUUID() });
    await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("step") }] });
    expect(env.notifier.hintsFor(chat.chatId).length).toBe(hints);
  });

  it("hints when the owner's heartbeat is stale or missing", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    await env.pool.query(`UPDATE chat_heartbeats SET heartbeat_at = now() - interval '31 seconds' WHERE chat_id = $1`, [chat.chatId]);
    const stale = await apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("late") }] });
    expect(env.notifier.hintsFor(chat.chatId).at(-1)).toEqual({ chat_id: chat.chatId, snapshot_version: stale.chat.snapshotVersion });

    await env.pool.query(`DELETE FROM chat_heartbeats WHERE chat_id = $1`, [chat.chatId]);
    const missing = await apply(env.store, recordGenerationAttempt, chat.chatId);
    expect(env.notifier.hintsFor(chat.chatId).at(-1)).toEqual({ chat_id: chat.chatId, snapshot_version: missing.chat.snapshotVersion });
  });

  it("uses the configured stale threshold", async () => {
    const notifier = new RecordingNotifier();
    const strict = new ChatStore(env.pool, { notifier, staleThresholdMs: 1_000 });
    const chat = await makeChat(env, "R0", { owned: true });
    await env.pool.query(`UPDATE chat_heartbeats SET heartbeat_at = now() - interval '2 seconds' WHERE chat_id = $1`, [chat.chatId]);
    const hints = env.notifier.hintsFor(chat.chatId).length;
    await apply(env.store, recordGenerationAttempt, chat.chatId);
    expect(env.notifier.hintsFor(chat.chatId).length).toBe(hints);
    const late = await apply(strict, recordGenerationAttempt, chat.chatId);
    expect(notifier.hintsFor(chat.chatId)).toEqual([{ chat_id: chat.chatId, snapshot_version: late.chat.snapshotVersion }]);
  });

  it("does not hint for a chat that is not runnable", async () => {
    const chat = await makeChat(env, "R0");
    const hints = env.notifier.hintsFor(chat.chatId).length;
    await apply(env.store, finishTurn, chat.chatId);
    await env.store.setArchived(chat.chatId, true);
    expect(env.notifier.hintsFor(chat.chatId).length).toBe(hints);
  });

  it("keeps the commit when a notifier throws, and still runs the other notifications", async () => {
    const seen: string[] = [];
    const store = new ChatStore(env.pool, {
      notifier: {
        chatUpdated: () => {
          throw new Error("pubsub down");
        },
        ownershipHint: (h) => seen.push(h.chat_id),
      },
    });
    const chat = await makeChat(env, "R0");
    const result = await apply(store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text("kept") }] });
    expect(Number((await chatRow(env, chat.chatId)).snapshot_version)).toBe(result.chat.snapshotVersion);
    expect(seen).toEqual([chat.chatId]);
  });

  it("publishes one chat:update per family member the archive changed", async () => {
    const root = await makeChat(env, "W");
    const child = await env.store.create({
      organizationId: env.owner.organizationId,
      ownerId: env.owner.userId,
      parentChatId: root.chatId,
      content: [],
    });
    const archived = await env.store.setArchived(root.chatId, true);
    for (const c of archived.chats) {
      expect(env.notifier.updatesFor(c.id).at(-1)).toMatchObject({ snapshot_version: c.snapshotVersion, archived: true });
    }
    expect(archived.chats.map((c) => c.id)).toEqual([root.chatId, child.chat.id]);
  });
});
