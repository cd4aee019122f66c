/**
 * A chat object's pool keeps its connections for CHAT_DB_IDLE_TIMEOUT_MS after their last use
 * (createPool's idleTimeoutMs), so a message after a pause runs on the same backend instead of
 * paying a new connection. Checked on the server's side: the backend's pid before and after.
 */
import type { Pool } from "@neondatabase/serverless";
import { afterAll, describe, expect, inject, it } from "vitest";
import { WebSocket } from "ws";
import { createPool } from "../../src/db/client";

const open = (idleTimeoutMs: number) =>
  createPool({ databaseUrl: inject("databaseUrl"), wsProxy: inject("wsProxy"), webSocketConstructor: WebSocket, max: 1, idleTimeoutMs });
const shortLived = open(1_000);
const kept = open(5_000);
afterAll(async () => {
  await shortLived.end();
  await kept.end();
});

const backend = async (pool: Pool) => (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;

describe("a pool's idle timeout", () => {
  it("closes a connection unused past it, and keeps one still within it", async () => {
    const [shortBefore, keptBefore] = await Promise.all([backend(shortLived), backend(kept)]);
    await new Promise((r) => setTimeout(r, 1_600));
    expect(shortLived.totalCount, "connections of the 1 s pool after 1.6 s").toBe(0);
    expect(kept.totalCount, "connections of the 5 s pool after 1.6 s").toBe(1);
    const [shortAfter, keptAfter] = await Promise.all([backend(shortLived), backend(kept)]);
    expect(keptAfter, "the 5 s pool's backend").toBe(keptBefore);
    expect(shortAfter, "the 1 s pool's backend").not.toBe(shortBefore);
  });
});
