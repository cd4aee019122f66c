/**
 * Transitions racing on the same rows: the row lock serializes them, the snapshot advances once
 * per transaction, queue positions stay contiguous, and a family archive never strands a child.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FamilyArchivedError } from "../../src/chats/index";
import { chatRow, history, makeChat, makeEnv, queueOf, text, type Env } from "./fixtures";
import { commitStep, recordRetryState, sendMessage } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv({ maxQueueLength: 200 }, 20);
});
afterAll(() => env.pool.end());

/**
 * How many backends wait, directly or in line, behind $1's locks. A second waiter on a row waits
 * on the first waiter's tuple lock, not on the holder, hence the walk.
 */
const WAITING_BEHIND = `
  WITH RECURSIVE behind(pid) AS (
    SELECT $1::int
    UNION
    SELECT a.pid FROM pg_stat_activity a JOIN behind b ON b.pid = ANY(pg_blocking_pids(a.pid))
  )
  SELECT count(*) - 1 AS n FROM behind`;

describe("concurrent transitions", () => {
  it("advances snapshot_version by exactly N for N concurrent transitions on one chat", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    const before = Number((await chatRow(env, chat.chatId)).snapshot_version);
    const N = 20;
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        i % 2 === 0
          ? apply(env.store, commitStep, chat.chatId, { messages: [{ role: "assistant", content: text(`step ${i}`) }] })
          : apply(env.store, recordRetryState, chat.chatId, { retryState: { attempt: i } }),
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
      Array.from({ length: 100 }, (_, i) =>
        apply(env.store, sendMessage, chat.chatId, { content: text(`queued ${i}`), busyBehavior: "queue" }),
      ),
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
    // Each interleaving forced: a blocker holds the root's row lock while the two transactions
    // queue behind it in the chosen order, then lets them go.
    for (const first of ["child", "archive"] as const) {
      const root = await makeChat(env, "W");
      const blocker = await env.pool.connect();
      try {
        await blocker.query("BEGIN");
        await blocker.query("SELECT 1 FROM chats WHERE id = $1 FOR UPDATE", [root.chatId]);
        const blockerPid = (await blocker.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
        const queued = async (n: number) =>
          expect
            .poll(async () => Number((await env.pool.query(WAITING_BEHIND, [blockerPid])).rows[0].n), { timeout: 10_000, interval: 20 })
            .toBe(n);
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
        const archive = () => env.store.setArchived(root.chatId, true);
        let child: Promise<string | null>;
        let archived: ReturnType<typeof archive>;
        if (first === "child") {
          child = createChild();
          await queued(1);
          archived = archive();
        } else {
          archived = archive();
          await queued(1);
          child = createChild();
        }
        await queued(2);
        await blocker.query("COMMIT");
        const created = await child;
        const { chats } = await archived;

        const { rows } = await env.pool.query<{ id: string; archived: boolean }>(`SELECT id, archived FROM chats WHERE root_chat_id = $1`, [
          root.chatId,
        ]);
        // Child first: it is created, then archived with the family. Archive first: it is refused.
        expect(created === null).toBe(first === "archive");
        expect(rows.map((r) => r.id)).toEqual(created === null ? [] : [created]);
        expect(rows.filter((r) => !r.archived)).toEqual([]);
        expect(chats.map((c) => c.id).sort()).toEqual([root.chatId, ...(created === null ? [] : [created])].sort());
      } finally {
        await blocker.query("ROLLBACK").catch(() => {});
        blocker.release();
      }
    }
  });
});
