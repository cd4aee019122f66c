/**
 * RecordGenerationAttempt in one statement for the runner that owns the chat
 * (ChatStore.recordOwnedAttempt, src/chat-worker/fenced-db.ts fencedRecordAttempt): it writes what
 * the transition through ChatStore.update writes, in one round trip, and a row that is not the
 * runner's running chat gets nothing written and the transition's own refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fencedRecordAttempt } from "../../src/chat-worker/fenced-db";
import { FenceError, type Fence } from "../../src/chat-worker/fence";
import { TransitionNotAllowedError } from "../../src/chatstate/index";
import { recordGenerationAttempt, recordRetryState } from "../../src/chats/transitions/index";
import type { ExecutionState } from "../../src/chatstate/index";
import { chatRow, makeChat, makeEnv, snapshotRows, type Env } from "./fixtures";
import { apply } from "./support/apply";
import { recordQueries } from "./support/record-queries";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

/** The runner's fence on the chat as it is now. */
async function fenceOf(chatId: string): Promise<Fence> {
  const row = await chatRow(env, chatId);
  return {
    chatId,
    workerId: row.worker_id as string,
    runnerId: row.runner_id as string,
    historyVersion: Number(row.history_version),
    status: row.status as Fence["status"],
  };
}

/** What RecordGenerationAttempt may change, relative to the row's own snapshot version where it is one. */
async function written(chatId: string) {
  const row = await chatRow(env, chatId);
  const snapshot = Number(row.snapshot_version);
  return {
    status: row.status,
    archived: row.archived,
    generationAttempt: Number(row.generation_attempt),
    retryState: row.retry_state,
    retryStateVersionBehind: snapshot - Number(row.retry_state_version),
    historyVersionBehind: snapshot - Number(row.history_version),
    lastError: row.last_error,
    deadline: row.requires_action_deadline_at,
    compactionRequested: row.compaction_requested_at !== null,
  };
}

/** A chat in `state` owned by a runner, with a retry pending, as a failed attempt leaves it. */
async function retryingChat(state: ExecutionState) {
  const { chatId } = await makeChat(env, state, { owned: true });
  await apply(env.store, recordGenerationAttempt, chatId);
  await apply(env.store, recordRetryState, chatId, { retryState: { kind: "rate_limit", attempt: 1 } });
  return chatId;
}

describe("RecordGenerationAttempt in one statement", () => {
  for (const state of ["R0", "R1"] as const) {
    it(`writes what the transaction writes, from ${state}`, async () => {
      const [viaTransaction, viaStatement] = [await retryingChat(state), await retryingChat(state)];
      const general = await apply(env.store, recordGenerationAttempt, viaTransaction);
      const owned = await fencedRecordAttempt(env.store, await fenceOf(viaStatement));
      expect(await written(viaStatement)).toEqual(await written(viaTransaction));
      expect((await written(viaStatement)).generationAttempt).toBe(2);
      expect((await written(viaStatement)).retryState).toBeNull();
      expect(owned.state).toBe(state);
      expect(owned.queueLength).toBe(general.queueLength);
      expect(owned.chat.snapshotVersion).toBe(Number((await chatRow(env, viaStatement)).snapshot_version));
      expect(owned.applied).toEqual([{ transition: "RecordGenerationAttempt", from: state, to: state }]);
    });
  }

  it("is one query, BEGIN and COMMIT included, and publishes the update after it", async () => {
    const { chatId } = await makeChat(env, "R0", { owned: true });
    const fence = await fenceOf(chatId);
    const before = env.notifier.updatesFor(chatId).length;
    const hints = env.notifier.hintsFor(chatId).length;
    const rec = recordQueries(env.pool);
    let committed: Awaited<ReturnType<typeof fencedRecordAttempt>>;
    try {
      committed = await fencedRecordAttempt(env.store, fence);
    } finally {
      rec.stop();
    }
    expect(rec.sent).toHaveLength(1);
    expect(rec.sent[0]).toMatch(/^BEGIN;\nUPDATE chats SET snapshot_version = snapshot_version \+ 1, generation_attempt/);
    expect(rec.sent[0]).toMatch(/;\nCOMMIT$/);
    const updates = env.notifier.updatesFor(chatId);
    expect(updates).toHaveLength(before + 1);
    expect(updates.at(-1)!.snapshot_version).toBe(committed.chat.snapshotVersion);
    // The runner's lease is fresh: no ownership hint.
    expect(env.notifier.hintsFor(chatId)).toHaveLength(hints);
  });

  it("writes nothing for a stale fence, and the task gets its FenceError", async () => {
    const { chatId } = await makeChat(env, "R0", { owned: true });
    const fence = await fenceOf(chatId);
    for (const stale of [
      { ...fence, historyVersion: fence.historyVersion - 1 },
      { ...fence, runnerId: crypto.randomUUID() },
      { ...fence, workerId: crypto.randomUUID() },
    ]) {
      const before = await snapshotRows(env.pool, chatId);
      const updates = env.notifier.updatesFor(chatId).length;
      expect(await env.store.recordOwnedAttempt(stale)).toBeUndefined();
      await expect(fencedRecordAttempt(env.store, stale)).rejects.toBeInstanceOf(FenceError);
      expect(await snapshotRows(env.pool, chatId)).toBe(before);
      expect(env.notifier.updatesFor(chatId)).toHaveLength(updates);
    }
  });

  it("leaves a chat that is not running to the transition, which refuses it", async () => {
    const { chatId } = await makeChat(env, "A0", { owned: true });
    const fence = await fenceOf(chatId);
    const before = await snapshotRows(env.pool, chatId);
    expect(await env.store.recordOwnedAttempt(fence)).toBeUndefined();
    // A fence on requires_action matches the row: the transition itself refuses A0.
    await expect(fencedRecordAttempt(env.store, fence)).rejects.toBeInstanceOf(TransitionNotAllowedError);
    expect(await snapshotRows(env.pool, chatId)).toBe(before);
  });
});
