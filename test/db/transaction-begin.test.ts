/**
 * BEGIN goes out with a transaction's first statement when that statement's parameters can be
 * written as literals (src/db/transaction.ts): one round trip fewer, and still one transaction.
 */
import type { Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTransaction } from "../../src/db/transaction";
import { type Env, makeChat, makeEnv } from "./fixtures";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(async () => {
  await env.pool.end();
});

/** The texts of the queries sent on connections taken with `await pool.connect()`, in order. */
function recordQueries(pool: Pool): { sent: string[]; stop(): void } {
  const sent: string[] = [];
  const connect = pool.connect.bind(pool);
  // pool.query takes its connection through connect's callback form: those are not recorded.
  const patched = async (callback?: unknown) => {
    if (typeof callback === "function") return connect(callback as never);
    const client = await connect();
    const query = client.query.bind(client);
    client.query = ((text: string, values?: unknown[]) => {
      sent.push(text);
      return query(text, values);
    }) as typeof client.query;
    const release = client.release.bind(client);
    client.release = ((err?: Error | boolean) => {
      client.query = query as typeof client.query;
      client.release = release;
      return release(err);
    }) as typeof client.release;
    return client;
  };
  (pool as { connect: unknown }).connect = patched;
  return { sent, stop: () => ((pool as { connect: unknown }).connect = connect) };
}

const BUMP = "UPDATE chats SET snapshot_version = snapshot_version + 1 WHERE id = $1 RETURNING snapshot_version";
const version = async (id: string) =>
  (await env.pool.query<{ v: number }>("SELECT snapshot_version::int AS v FROM chats WHERE id = $1", [id])).rows[0]!.v;

describe("a transaction's BEGIN", () => {
  it("shares one query with a first statement whose parameters are ids, and the statement is inside the transaction", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await version(chatId);
    const rec = recordQueries(env.pool);
    try {
      const rows = await runTransaction(env.pool, (t) => t.query<{ snapshot_version: string }>(BUMP, [chatId]));
      expect(Number(rows[0]!.snapshot_version)).toBe(before + 1);
      expect(rec.sent.map((q) => q.split("\n")[0])).toEqual(["BEGIN;", "COMMIT"]);

      // Rolled back with the rest: the bump was inside the transaction.
      rec.sent.length = 0;
      await expect(
        runTransaction(env.pool, async (t) => {
          await t.query(BUMP, [chatId]);
          throw new Error("abandoned");
        }),
      ).rejects.toThrow("abandoned");
      expect(rec.sent.map((q) => q.split("\n")[0])).toEqual(["BEGIN;", "ROLLBACK"]);
      expect(await version(chatId)).toBe(before + 1);
    } finally {
      rec.stop();
    }
  });

  it("goes out alone before a first statement with a text parameter, and not at all when no statement runs", async () => {
    const { chatId } = await makeChat(env, "W");
    const rec = recordQueries(env.pool);
    try {
      await runTransaction(env.pool, (t) => t.query("UPDATE chats SET title = $2 WHERE id = $1", [chatId, "it's mine"]));
      expect(rec.sent).toEqual(["BEGIN", "UPDATE chats SET title = $2 WHERE id = $1", "COMMIT"]);
      expect((await env.pool.query("SELECT title FROM chats WHERE id = $1", [chatId])).rows[0]!.title).toBe("it's mine");

      rec.sent.length = 0;
      expect(await runTransaction(env.pool, async () => "nothing")).toBe("nothing");
      expect(rec.sent).toEqual([]);
    } finally {
      rec.stop();
    }
  });
});
