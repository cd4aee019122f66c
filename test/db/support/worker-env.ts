/**
 * A fixtures Env on a database of the test file's own, for the worker tests. Admission counts
 * owned chats deployment-wide, the sweep reads every runnable chat, cleanup deletes every stale
 * heartbeat, and the admission locks are per database: on the shared database, chats and locks
 * of test files running in parallel would change the counts under the test. Its own database
 * gives each file an exact, quiet deployment, with production code unchanged.
 */
import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "@neondatabase/serverless";
import { inject } from "vitest";
import { WebSocket } from "ws";
import { createPool } from "../../../src/db/client";
import { ChatStore, type ChatStoreOptions } from "../../../src/chats/index";
import { ADMISSION_LOCK_KEYS, ADMISSION_LOCK_NAMESPACE, type PoolName } from "../../../src/chat-worker/leases/index";
import { makeChat, makeOwner, RecordingNotifier, text, type Env, type FixtureChat } from "../fixtures";
import { createOwnDatabase, type OwnDatabase } from "./own-database";

export interface WorkerEnv extends Env {
  own: OwnDatabase;
  close(): Promise<void>;
}

export async function makeWorkerEnv(prefix: string, options: ChatStoreOptions = {}, poolSize = 20): Promise<WorkerEnv> {
  const own = await createOwnDatabase(prefix);
  const pool = createPool({ databaseUrl: own.url, wsProxy: inject("wsProxy"), webSocketConstructor: WebSocket, max: poolSize });
  const notifier = new RecordingNotifier();
  const store = new ChatStore(pool, { notifier, ...options });
  return {
    own,
    pool,
    store,
    notifier,
    owner: await makeOwner(pool),
    close: async () => {
      await pool.end();
      await own.drop();
    },
  };
}

/** A subagent chat (a child of a fresh root) in R0, unowned. */
export async function makeSubagentChat(env: Env): Promise<string> {
  const root = await makeChat(env, "W");
  const child = await env.store.create({
    organizationId: env.owner.organizationId,
    ownerId: env.owner.userId,
    parentChatId: root.chatId,
    content: text("sub task"),
  });
  return child.chat.id;
}

export function worker(): { workerId: string; runnerId: string } {
  return { workerId: randomUUID(), runnerId: randomUUID() };
}

/** Moves the heartbeat(s) of a chat `ms` into the past (all runners, or one). */
export async function backdateHeartbeat(pool: Pool, chatId: string, ms: number, runnerId?: string): Promise<void> {
  await pool.query(
    `UPDATE chat_heartbeats SET heartbeat_at = now() - $2::int * interval '1 millisecond'
     WHERE chat_id = $1 AND ($3::uuid IS NULL OR runner_id = $3::uuid)`,
    [chatId, ms, runnerId ?? null],
  );
}

export async function heartbeatsOf(pool: Pool, chatId: string): Promise<{ runnerId: string; heartbeatAt: Date; ageMs: number }[]> {
  const { rows } = await pool.query<{ runner_id: string; heartbeat_at: Date; age_ms: number }>(
    `SELECT runner_id, heartbeat_at, (extract(epoch FROM now() - heartbeat_at) * 1000)::float8 AS age_ms
     FROM chat_heartbeats WHERE chat_id = $1 ORDER BY runner_id`,
    [chatId],
  );
  return rows.map((r) => ({ runnerId: r.runner_id, heartbeatAt: new Date(r.heartbeat_at), ageMs: Number(r.age_ms) }));
}

/**
 * Opens a transaction on its own connection holding the given pools' admission locks, as an
 * admission holds them (exclusive) or as a renewal in flight does (shared); `release` commits.
 */
export async function holdAdmissionLocks(
  pool: Pool,
  pools: readonly PoolName[],
  mode: "exclusive" | "shared" = "exclusive",
): Promise<{ client: PoolClient; release(): Promise<void> }> {
  const client = await pool.connect();
  await client.query("BEGIN");
  const lock = mode === "shared" ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock";
  for (const p of pools) {
    await client.query(`SELECT ${lock}($1::int4, $2::int4)`, [ADMISSION_LOCK_NAMESPACE, ADMISSION_LOCK_KEYS[p]]);
  }
  return {
    client,
    release: async () => {
      try {
        await client.query("COMMIT");
      } finally {
        client.release();
      }
    },
  };
}

/** How many sessions of this database are queued for an admission lock. */
export async function lockWaiters(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND NOT granted AND classid = $1::int4::oid
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [ADMISSION_LOCK_NAMESPACE],
  );
  return rows[0]?.n ?? 0;
}

/** Resolves once `n` sessions are queued for an admission lock (so a test can act while they wait). */
export async function waitForLockWaiters(pool: Pool, n: number, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if ((await lockWaiters(pool)) >= n) return;
    if (Date.now() > until) throw new Error(`fewer than ${n} sessions waited for an admission lock within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export type { FixtureChat };
