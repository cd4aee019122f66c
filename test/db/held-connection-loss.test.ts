/**
 * A connection cut while a caller holds it (inside a transaction, between two statements) must
 * reach that caller as a failed statement, never as an uncaught exception: R6's Postgres restart
 * showed the runtime logging dozens of "Uncaught Error: Connection terminated unexpectedly".
 */
import { afterAll, describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src/db/pg-errors";
import { inTransaction } from "../../src/db/transaction";
import { openPool } from "./fixtures";

const pool = openPool(2);
const admin = openPool(1);
afterAll(async () => {
  await pool.end();
  await admin.end();
});

describe("a held connection that is cut", () => {
  it("fails the transaction's next statement as unavailability, raises nothing uncaught, and leaves the pool usable", async () => {
    const uncaught: unknown[] = [];
    const record = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", record);
    try {
      const failure = await inTransaction(pool, "BEGIN", async (client) => {
        const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
        // The server's goodbye and the socket's close reach the idle, held client meanwhile.
        await expect.poll(() => (client as unknown as { _queryable: boolean })._queryable, { timeout: 5_000 }).toBe(false);
        await client.query("SELECT 1");
      }).then(
        () => new Error("the transaction committed on a cut connection"),
        (err: unknown) => err,
      );
      expect(isDatabaseUnavailable(failure), `the failure: ${String(failure)}`).toBe(true);
      expect(uncaught).toEqual([]);
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    } finally {
      process.off("uncaughtException", record);
    }
  });
});
