/**
 * A statement that goes unanswered fails its caller after the pool's query timeout, as a
 * database-unavailable error (a 503), instead of leaving the request hanging (R6's restart).
 */
import { inject } from "vitest";
import { afterAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { createPool } from "../../src/db/client";
import { isDatabaseUnavailable } from "../../src/db/pg-errors";

const pool = createPool({
  databaseUrl: inject("databaseUrl"),
  wsProxy: inject("wsProxy"),
  webSocketConstructor: WebSocket,
  max: 2,
  queryTimeoutMs: 300,
});
afterAll(() => pool.end());

describe("the pool's query timeout", () => {
  it("fails a statement that outlasts it as unavailability, and the pool still serves", async () => {
    const started = Date.now();
    const failure = await pool.query("SELECT pg_sleep(5)").then(
      () => new Error("the sleep finished inside the timeout"),
      (err: unknown) => err,
    );
    expect(String(failure)).toMatch(/Query read timeout/);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
  });
});
