/**
 * One Postgres transaction on one pooled connection of the Neon serverless `Pool` (the WebSocket
 * driver: an interactive transaction needs it, the HTTP driver cannot hold a lock across
 * statements). It counts the statements it runs so tests can bound what happens under a row lock,
 * and buffers the effects that may only run after COMMIT.
 */
import type { Pool, PoolClient } from "@neondatabase/serverless";
import { errorText, logger } from "../log/log";
import type { RawRow } from "./rows";

export class StoreTransaction {
  #statements: string[] = [];
  readonly #afterCommit: (() => void)[] = [];

  constructor(readonly client: PoolClient) {}

  /** Statements run since BEGIN, excluding BEGIN and COMMIT. */
  get statements(): number {
    return this.#statements.length;
  }

  /** The first words of every statement run so far, for diagnosing a statement count. */
  get statementLog(): readonly string[] {
    return this.#statements;
  }

  async query<R extends RawRow = RawRow>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    this.#statements.push(text.replace(/\s+/g, " ").trim().slice(0, 80));
    const result = await this.client.query(text, values as unknown[]);
    return result.rows as R[];
  }

  /** Runs `effect` after a successful COMMIT; dropped on rollback. */
  afterCommit(effect: () => void): void {
    this.#afterCommit.push(effect);
  }

  /** @internal */
  flushAfterCommit(): void {
    for (const effect of this.#afterCommit.splice(0)) {
      try {
        effect();
      } catch (err) {
        // Committed data stays committed; a failed notification is healed by the receivers' sync poll.
        logger.warn("after_commit_effect_failed", { error: errorText(err) });
      }
    }
  }
}

/** Observes finished transactions; tests use it to count statements. */
export type TransactionObserver = (t: { statements: number; statementLog: readonly string[]; committed: boolean }) => void;

/** BEGIN; fn; COMMIT; then the after-commit effects. Any error rolls back and runs none of them. */
export async function runTransaction<T>(pool: Pool, fn: (t: StoreTransaction) => Promise<T>, observe?: TransactionObserver): Promise<T> {
  let t: StoreTransaction | undefined;
  let value: T;
  try {
    value = await inTransaction(pool, "BEGIN", (client) => {
      t = new StoreTransaction(client);
      return fn(t);
    });
  } catch (err) {
    if (t) observe?.({ statements: t.statements, statementLog: t.statementLog, committed: false });
    throw err;
  }
  const done = t as StoreTransaction;
  observe?.({ statements: done.statements, statementLog: done.statementLog, committed: true });
  done.flushAfterCommit();
  return value;
}

/**
 * `begin` (BEGIN, or BEGIN with an isolation level); fn; COMMIT, on one pooled connection. Any
 * error rolls back; a connection whose ROLLBACK failed is in an unknown state and is destroyed
 * rather than reused.
 */
export async function inTransaction<T>(pool: Pool, begin: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let value: T;
  try {
    await client.query(begin);
    value = await fn(client);
    await client.query("COMMIT");
  } catch (err) {
    let broken: Error | undefined;
    try {
      await client.query("ROLLBACK");
    } catch (rollbackErr) {
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    }
    client.release(broken ?? false);
    throw err;
  }
  client.release();
  return value;
}
