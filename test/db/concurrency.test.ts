/**
 * Transitions racing on the same rows: the row lock serializes them, the snapshot advances once
 * per transaction, queue positions stay contiguous, and a family archive never strands a child.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FamilyArchivedError } from "../../src/db/index";
import { chatRow, history, makeChat, makeEnv, queueOf, text, type Env } from "./fixtures";

let env: Env;
beforeAll(async () => {
  env = await makeEnv({ maxQueueLength: 200 }, 20);
});
afterAll(() => env.pool.end());

describe("concurrent transitions", () => {
  it("advances snapshot_version by exactly N for N concurrent transitions on one chat", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const before = Number((await chatRow(env, chat.chatId)).snapshot_version);
    const N = 20;
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        i % 2 === 0
          ? env.store.commitStep(chat.chatId, { messages: [{ role: "assistant", content: text(`step ${i}`) }] })
          : env.store.recordRetryState(chat.chatId, { attempt: i }),
      ),
    );
    const after = await chatRow(env, chat.chatId);
    expect(Number(after.snapshot_version)).toBe(before + N);
    // Each transaction saw a distinct snapshot: they were serialized, not merged.
    expect(new Set(results.map((r) => r.chat.snapshotVersion)).size).toBe(N);
    const steps = (await history(env, chat.chatId)).filter(
      (m) => m.role === "assistant" && m.content[0]?.type === "text" && m.content[0].text.startsWith("step"),
    );
    expect(steps).toHaveLength(N / 2);
    expect(new Set(steps.map((m) => m.revision)).size).toBe(N / 2);
  });

  it("keeps 100 concurrent queued sends on a running chat as 100 rows at positions 0..99", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const before = Number((await chatRow(env, chat.chatId)).snapshot_version);
    const sends = await Promise.all(
      Array.from({ length: 100 }, (_, i) => env.store.sendMessage(chat.chatId, { content: text(`queued ${i}`), busyBehavior: "queue" })),
    );
    expect(sends.every((s) => s.value.queued)).toBe(true);
    const queue = await queueOf(env, chat.chatId);
    expect(queue).toHaveLength(100);
    expect(queue.map((q) => q.position)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // The queue's order is the commit order of the sends.
    const byVersion = [...sends].sort((a, b) => a.chat.snapshotVersion - b.chat.snapshotVersion).map((s) => s.value.queuedMessage!.id);
    expect(queue.map((q) => q.id)).toEqual(byVersion);
    const after = await chatRow(env, chat.chatId);
    expect(Number(after.snapshot_version)).toBe(before + 100);
    expect(Number(after.queue_version)).toBe(before + 100);
  });

  it("never leaves an unarchived child under an archived root when archiving races child creation", async () => {
    const outcomes = { childFirst: 0, archiveFirst: 0 };
    for (let round = 0; round < 8; round++) {
      const root = await makeChat(env, "W");
      const createChild = () =>
        env.store
          .create({ organizationId: env.owner.organizationId, ownerId: env.owner.userId, parentChatId: root.chatId, content: [] })
          .then(
            (c) => c.chat.id,
            (err: unknown) => {
              expect(err).toBeInstanceOf(FamilyArchivedError);
              return null;
            },
          );
      const [children, archived] = await Promise.all([
        Promise.all([createChild(), createChild(), createChild()]),
        // Let some creations start first in some rounds, in others the archive.
        new Promise((r) => setTimeout(r, round % 4)).then(() => env.store.setArchived(root.chatId, true)),
      ]);
      const created = children.filter((id): id is string => id !== null);
      const { rows } = await env.pool.query<{ id: string; archived: boolean }>(`SELECT id, archived FROM chats WHERE root_chat_id = $1`, [
        root.chatId,
      ]);
      expect(rows.map((r) => r.id).sort()).toEqual([...created].sort());
      expect(rows.filter((r) => !r.archived)).toEqual([]);
      expect(archived.chats.map((c) => c.id).sort()).toEqual([root.chatId, ...created].sort());
      if (created.length > 0) outcomes.childFirst++;
      if (created.length < 3) outcomes.archiveFirst++;
    }
    // Both interleavings happen over the rounds; the invariant above held in each.
    expect(outcomes.childFirst + outcomes.archiveFirst).toBeGreaterThan(0);
  });
});
