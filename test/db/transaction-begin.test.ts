/**
 * BEGIN goes out with a transaction's first statement, and COMMIT with its last, when that
 * statement's parameters can be written as literals (src/db/transaction.ts): a round trip fewer
 * each, and still one transaction. A queued statement goes out with the next one the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failedCommitCheck } from "../../src/db/pg-errors";
import { runTransaction } from "../../src/db/transaction";
import { type Env, makeChat, makeEnv } from "./fixtures";
import { recordQueries } from "./support/record-queries";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(async () => {
  await env.pool.end();
});

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

  it("goes out alone before a first statement with an object parameter, and not at all when no statement runs", async () => {
    const { chatId } = await makeChat(env, "W");
    const rec = recordQueries(env.pool);
    const sql = "UPDATE chats SET title = $2::jsonb->>'t' WHERE id = $1";
    try {
      await runTransaction(env.pool, (t) => t.query(sql, [chatId, { t: "it's mine" }]));
      expect(rec.sent).toEqual(["BEGIN", sql, "COMMIT"]);
      expect((await env.pool.query("SELECT title FROM chats WHERE id = $1", [chatId])).rows[0]!.title).toBe("it's mine");

      rec.sent.length = 0;
      expect(await runTransaction(env.pool, async () => "nothing")).toBe("nothing");
      expect(rec.sent).toEqual([]);
    } finally {
      rec.stop();
    }
  });
});

describe("statements sent together (queryEach)", () => {
  it("go out as one query, with BEGIN when they are the first, and each answers its rows", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await version(chatId);
    const rec = recordQueries(env.pool);
    try {
      const [first, second] = await runTransaction(env.pool, (t) =>
        t.queryEach([
          { text: "SELECT $1::int AS n", values: [1] },
          { text: BUMP, values: [chatId] },
        ]),
      );
      expect(first).toEqual([{ n: 1 }]);
      expect(Number(second![0]!.snapshot_version)).toBe(before + 1);
      expect(rec.sent.map((q) => q.split("\n")[0])).toEqual(["BEGIN;", "COMMIT"]);
    } finally {
      rec.stop();
    }
  });

  it("go out one by one when one cannot be inlined", async () => {
    const rec = recordQueries(env.pool);
    try {
      const rows = await runTransaction(env.pool, (t) =>
        t.queryEach([
          { text: "SELECT $1::int AS n", values: [1] },
          { text: "SELECT ($1::jsonb)->>'a' AS a", values: [{ a: "x" }] },
        ]),
      );
      expect(rows).toEqual([[{ n: 1 }], [{ a: "x" }]]);
      expect(rec.sent).toEqual(["BEGIN;\nSELECT '1'::int AS n", "SELECT ($1::jsonb)->>'a' AS a", "COMMIT"]);
    } finally {
      rec.stop();
    }
  });
});

describe("a transaction's COMMIT", () => {
  const TITLE = "UPDATE chats SET title = $2 WHERE id = $1 RETURNING title";
  const title = async (id: string) => (await env.pool.query("SELECT title FROM chats WHERE id = $1", [id])).rows[0]!.title;

  it("shares one query with the last statement, and with BEGIN too when it is also the first", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await version(chatId);
    const rec = recordQueries(env.pool);
    try {
      const rows = await runTransaction(env.pool, (t) => t.queryThenCommit<{ title: string }>(TITLE, [chatId, "alone"]));
      expect(rows).toEqual([{ title: "alone" }]);
      expect(rec.sent.map((q) => q.split("\n"))).toEqual([
        ["BEGIN;", `UPDATE chats SET title = 'alone' WHERE id = '${chatId}' RETURNING title;`, "COMMIT"],
      ]);

      rec.sent.length = 0;
      await runTransaction(env.pool, async (t) => {
        await t.query(BUMP, [chatId]);
        await t.queryThenCommit(TITLE, [chatId, "second"]);
      });
      expect(rec.sent.map((q) => q.split("\n").at(-1))).toEqual([BUMP.replace("$1", `'${chatId}'`), "COMMIT"]);
      expect(await title(chatId)).toBe("second");
      expect(await version(chatId)).toBe(before + 1);
    } finally {
      rec.stop();
    }
  });

  it("rolls back the whole transaction when the last statement raises (chatd_check), and the connection is reused", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await version(chatId);
    const rec = recordQueries(env.pool);
    try {
      const failed = runTransaction(env.pool, async (t) => {
        await t.query(BUMP, [chatId]);
        await t.queryThenCommit("UPDATE chats SET title = $2 WHERE id = $1 RETURNING chatd_check(false, $3)", [
          chatId,
          "vetoed",
          "a_check",
        ]);
      });
      const err = await failed.catch((e: unknown) => e);
      expect(failedCommitCheck(err)).toBe("a_check");
      expect(rec.sent.at(-1)).toBe("ROLLBACK");
      expect(await version(chatId)).toBe(before);
      expect(await title(chatId)).not.toBe("vetoed");
      // The same pool's connections still work.
      await runTransaction(env.pool, (t) => t.queryThenCommit(TITLE, [chatId, "after"]));
      expect(await title(chatId)).toBe("after");
    } finally {
      rec.stop();
    }
  });

  it("goes out on its own after a last statement whose parameters cannot be inlined, and refuses a statement after it", async () => {
    const { chatId } = await makeChat(env, "W");
    const rec = recordQueries(env.pool);
    const sql = "UPDATE chats SET title = $2::jsonb->>'t' WHERE id = $1";
    try {
      await runTransaction(env.pool, (t) => t.queryThenCommit(sql, [chatId, { t: "from json" }]));
      expect(rec.sent).toEqual(["BEGIN", sql, "COMMIT"]);
      expect(await title(chatId)).toBe("from json");

      await expect(
        runTransaction(env.pool, async (t) => {
          await t.queryThenCommit(TITLE, [chatId, "committed"]);
          await t.query(BUMP, [chatId]);
        }),
      ).rejects.toThrow("after the transaction's COMMIT");
      // COMMIT had gone out: the first statement stays.
      expect(await title(chatId)).toBe("committed");
    } finally {
      rec.stop();
    }
  });

  it("writes any text as a literal that reads back exactly, whatever standard_conforming_strings says", async () => {
    const hostile = [
      "it's",
      "back\\slash\\",
      "\\'; DROP TABLE chats; --",
      "E'x'",
      "$1 $$ $tag$",
      "line\nbreak\ttab",
      "ünïcödé 😀",
      "''",
      "\\",
    ];
    for (const conforming of ["on", "off"]) {
      const rows = await runTransaction(env.pool, async (t) => {
        await t.query(`SELECT set_config('standard_conforming_strings', $1, true)`, [conforming]);
        return t.queryThenCommit<{ v: string[] }>("SELECT ARRAY[$1::text, $2, $3, $4, $5, $6, $7, $8, $9] AS v", hostile);
      });
      expect(rows[0]!.v).toEqual(hostile);
    }
  });
});

describe("a queued statement", () => {
  const TITLE = "UPDATE chats SET title = $2 WHERE id = $1 RETURNING title";
  const title = async (id: string) => (await env.pool.query("SELECT title FROM chats WHERE id = $1", [id])).rows[0]!.title;

  it("goes out with the next statement, in its round trip and before it, and answers first", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await version(chatId);
    const rec = recordQueries(env.pool);
    try {
      const answered: string[] = [];
      await runTransaction(env.pool, async (t) => {
        await t.query(BUMP, [chatId]);
        t.queueStatement(BUMP, [chatId], (rows) => answered.push(`bump ${rows[0]!.snapshot_version}`));
        expect(t.hasQueued).toBe(true);
        const rows = await t.queryThenCommit<{ title: string }>(TITLE, [chatId, "with the queued"]);
        answered.push(`title ${rows[0]!.title}`);
      });
      expect(answered).toEqual([`bump ${before + 2}`, "title with the queued"]);
      const inlinedBump = BUMP.replace("$1", `'${chatId}'`);
      expect(rec.sent.map((q) => q.split("\n"))).toEqual([
        ["BEGIN;", inlinedBump],
        [`${inlinedBump};`, `UPDATE chats SET title = E'with the queued' WHERE id = '${chatId}' RETURNING title;`, "COMMIT"],
      ]);
      expect(await title(chatId)).toBe("with the queued");
    } finally {
      rec.stop();
    }
  });

  it("goes out before COMMIT when no statement follows it", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await version(chatId);
    const rec = recordQueries(env.pool);
    try {
      let answered = false;
      await runTransaction(env.pool, async (t) => {
        t.queueStatement(BUMP, [chatId], () => {
          answered = true;
        });
      });
      expect(answered).toBe(true);
      expect(rec.sent.map((q) => q.split("\n")[0])).toEqual(["BEGIN;", "COMMIT"]);
      expect(await version(chatId)).toBe(before + 1);
    } finally {
      rec.stop();
    }
  });

  it("goes out alone, still first, when its parameters cannot be inlined", async () => {
    const { chatId } = await makeChat(env, "W");
    const rec = recordQueries(env.pool);
    const sql = "UPDATE chats SET title = $2::jsonb->>'t' WHERE id = $1";
    try {
      await runTransaction(env.pool, async (t) => {
        t.queueStatement(sql, [chatId, { t: "queued json" }], () => {});
        await t.queryThenCommit(TITLE.replace("title = $2", "title = title || $2"), [chatId, ", then this"]);
      });
      expect(rec.sent[0]).toBe("BEGIN");
      expect(rec.sent[1]).toBe(sql);
      expect(rec.sent).toHaveLength(3);
      expect(await title(chatId)).toBe("queued json, then this");
    } finally {
      rec.stop();
    }
  });

  it("fails the statement it went with when it fails, and the transaction rolls back", async () => {
    const { chatId } = await makeChat(env, "W");
    const before = await version(chatId);
    const beforeTitle = await title(chatId);
    let answered = false;
    const failed = runTransaction(env.pool, async (t) => {
      await t.query(BUMP, [chatId]);
      t.queueStatement("SELECT chatd_check(false, $1)", ["queued_check"], () => {
        answered = true;
      });
      await t.queryThenCommit(TITLE, [chatId, "never"]);
    });
    expect(failedCommitCheck(await failed.catch((e: unknown) => e))).toBe("queued_check");
    expect(answered).toBe(false);
    expect(await version(chatId)).toBe(before);
    expect(await title(chatId)).toBe(beforeTitle);
  });
});
