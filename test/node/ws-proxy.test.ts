import { describe, it, expect, inject, afterAll } from "vitest";
import { WebSocket } from "ws";
import { createPool } from "../../src/db/client";
import { startWsProxy } from "../../scripts/lib/ws-proxy";

// The Neon driver through scripts/lib/ws-proxy.ts is how every layer reaches Postgres locally.
const pool = createPool({ databaseUrl: inject("databaseUrl"), wsProxy: inject("wsProxy"), webSocketConstructor: WebSocket, max: 4 });
afterAll(() => pool.end());

describe("the Neon driver through the local WebSocket proxy", () => {
  it("runs queries and interactive transactions against the real Postgres", async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("CREATE TEMP TABLE t (n int) ON COMMIT DROP");
      await client.query("INSERT INTO t VALUES (1), (2), (3)");
      const { rows } = await client.query<{ sum: string }>("SELECT sum(n) FROM t");
      await client.query("COMMIT");
      expect(rows[0]?.sum).toBe("6");
    } finally {
      client.release();
    }
  });

  it("holds row locks across statements, so a second transaction waits", async () => {
    await pool.query("CREATE TABLE IF NOT EXISTS proxy_lock_probe (id int PRIMARY KEY, n int)");
    await pool.query("INSERT INTO proxy_lock_probe VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0");
    const a = await pool.connect();
    const b = await pool.connect();
    try {
      await a.query("BEGIN");
      await a.query("SELECT * FROM proxy_lock_probe WHERE id = 1 FOR UPDATE");
      const bPid = (await b.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
      await b.query("BEGIN");
      let bDone = false;
      const bUpdate = b.query("UPDATE proxy_lock_probe SET n = n + 1 WHERE id = 1").then(() => {
        bDone = true;
      });
      // Postgres itself says b waits for a's row lock.
      const waiting = async () =>
        (await pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [bPid])).rowCount;
      await expect.poll(waiting).toBe(1);
      expect(bDone).toBe(false);
      await a.query("UPDATE proxy_lock_probe SET n = n + 10 WHERE id = 1");
      await a.query("COMMIT");
      await bUpdate;
      await b.query("COMMIT");
      const { rows } = await pool.query<{ n: number }>("SELECT n FROM proxy_lock_probe WHERE id = 1");
      expect(rows[0]?.n).toBe(11);
    } finally {
      a.release();
      b.release();
    }
  });

  it("refuses to dial an address that is not on its allow-list", async () => {
    const proxy = await startWsProxy({ allow: ["127.0.0.1:1"] });
    try {
      const outcome = await new Promise<string>((resolve) => {
        const ws = new WebSocket(`ws://${proxy.hostPort}/v2?address=127.0.0.1:22`);
        ws.on("open", () => resolve("open"));
        ws.on("unexpected-response", (_req, res) => resolve(`status ${res.statusCode}`));
        ws.on("error", (err) => resolve(`error ${err.message}`));
      });
      expect(outcome).toBe("status 403");
    } finally {
      await proxy.close();
    }
  });

  it("closes the TCP side when the client goes away", async () => {
    const target = new URL(inject("databaseUrl"));
    const proxy = await startWsProxy({ allow: [`${target.hostname}:${target.port}`] });
    try {
      const ws = new WebSocket(`ws://${proxy.hostPort}/v2?address=${target.hostname}:${target.port}`);
      await new Promise((resolve, reject) => {
        ws.on("open", resolve);
        ws.on("error", reject);
      });
      expect(proxy.openConnections()).toBe(1);
      ws.close();
      await expect.poll(() => proxy.openConnections()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("delays each direction by latencyMs and counts one round trip per wait on the database", async () => {
    const target = new URL(inject("databaseUrl"));
    const allow = [`${target.hostname}:${target.port}`];
    const delayed = await startWsProxy({ allow, latencyMs: 40 });
    const slow = createPool({ databaseUrl: inject("databaseUrl"), wsProxy: delayed.hostPort, webSocketConstructor: WebSocket, max: 1 });
    try {
      // A warm connection: the connect and the authentication are not what is measured.
      await slow.query("SELECT 1");
      delayed.resetCounters();
      const started = performance.now();
      await slow.query("SELECT 1");
      // A lower bound only (both directions waited); how fast it is otherwise is a bench's business.
      expect(performance.now() - started).toBeGreaterThanOrEqual(80);
      expect(delayed.counters()).toMatchObject({ roundTrips: 1, connections: 0 });

      // Three statements sent before any answer (one client, queued): still one round trip each,
      // since the driver waits for each answer; a transaction of three is three.
      delayed.resetCounters();
      const client = await slow.connect();
      try {
        await client.query("BEGIN");
        await client.query("SELECT 1");
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      expect(delayed.counters().roundTrips).toBe(3);
    } finally {
      await slow.end();
      await delayed.close();
    }
  });

  // Only against the embedded Postgres, which asks for a cleartext password as Neon's proxy does
  // (scripts/lib/stack.ts); a DATABASE_URL's server may ask for SCRAM.
  it.skipIf(inject("pipelineConnect") !== "password")(
    "opens a connection in two round trips, or with its first statement in one with pipelineConnect",
    async () => {
      const target = new URL(inject("databaseUrl"));
      const proxy = await startWsProxy({ allow: [`${target.hostname}:${target.port}`] });
      const firstQuery = async (pipelineConnect: "off" | "password") => {
        const fresh = createPool({
          databaseUrl: inject("databaseUrl"),
          wsProxy: proxy.hostPort,
          pipelineConnect,
          webSocketConstructor: WebSocket,
          max: 1,
        });
        try {
          proxy.resetCounters();
          const { rows } = await fresh.query<{ one: number }>("SELECT 1 AS one");
          expect(rows[0]?.one).toBe(1);
          return proxy.counters();
        } finally {
          await fresh.end();
        }
      };
      try {
        // The startup, then the password once asked for it, then the statement.
        expect(await firstQuery("off")).toMatchObject({ roundTrips: 3, connections: 1 });
        // The startup, the password and the statement together, as with Neon's proxy.
        expect(await firstQuery("password")).toMatchObject({ roundTrips: 1, connections: 1 });
      } finally {
        await proxy.close();
      }
    },
  );

  it("does not count a closing connection's Terminate as a round trip", async () => {
    const target = new URL(inject("databaseUrl"));
    const proxy = await startWsProxy({ allow: [`${target.hostname}:${target.port}`] });
    try {
      const fresh = createPool({ databaseUrl: inject("databaseUrl"), wsProxy: proxy.hostPort, webSocketConstructor: WebSocket, max: 1 });
      await fresh.query("SELECT 1");
      const before = proxy.counters().roundTrips;
      await fresh.end();
      await expect.poll(() => proxy.openConnections()).toBe(0);
      expect(proxy.counters().roundTrips).toBe(before);
    } finally {
      await proxy.close();
    }
  });
});
