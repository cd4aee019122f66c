/**
 * ChatObject: one Durable Object per chat (`idFromName(chatId)`). A thin adapter from platform
 * calls (RPC, fetch, alarm, WebSocket) to the code in src/. It holds only what the spec keeps in
 * memory; Postgres holds everything committed.
 */
import { DurableObject } from "cloudflare:workers";
import type { Pool } from "@neondatabase/serverless";
import { configFromEnv } from "../src/config/env";
import { createPool } from "../src/db/client";
import { setLogLevel } from "../src/log";

/** A few connections are plenty: one object serializes its chat's work. */
const POOL_SIZE = 4;

export class ChatObject extends DurableObject<Env> {
  #pool: Pool | undefined;

  /** The pool lives as long as the object: warm connections make transitions fast. */
  protected pool(): Pool {
    if (!this.#pool) {
      const config = configFromEnv(this.env);
      setLogLevel(config.LOG_LEVEL);
      this.#pool = createPool({ databaseUrl: config.DATABASE_URL, wsProxy: config.NEON_WS_PROXY, max: POOL_SIZE });
    }
    return this.#pool;
  }

  /** Health check: one query through this object's pool. */
  async checkDatabase(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      const result = await this.pool().query("SELECT 1 AS one");
      return result.rows[0]?.one === 1 ? { ok: true } : { ok: false, error: "unexpected reply" };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }
}
