/**
 * One Postgres transaction on one pooled connection of the Neon serverless `Pool` (the WebSocket
 * driver: an interactive transaction needs it, the HTTP driver cannot hold a lock across
 * statements). It counts the statements it runs so tests can bound what happens under a row lock,
 * and buffers the effects that may only run after COMMIT.
 *
 * BEGIN costs no round trip of its own when it can be avoided: it goes out with the transaction's
 * first statement, as one simple-protocol query, when that statement's parameters can be written
 * as literals that need no quoting (inline-parameters.ts); the driver sends one query at a time,
 * so this is the only way to put both in one round trip. A transaction that runs no statement sends
 * neither BEGIN nor COMMIT.
 */
import type { Pool, PoolClient, QueryResult } from "@neondatabase/serverless";
import { errorText, logger } from "../log/log";
import { inlineParameters } from "./inline-parameters";
import type { RawRow } from "./rows";

export class StoreTransaction {
  #statements: string[] = [];
  readonly #afterCommit: (() => void)[] = [];
  readonly #client: PoolClient;
  /** BEGIN, until it has gone out. */
  #pendingBegin: string | undefined;

  constructor(client: PoolClient, begin = "BEGIN") {
    this.#client = client;
    this.#pendingBegin = begin;
  }

  /** Whether BEGIN has gone out (and COMMIT or ROLLBACK must follow). */
  get began(): boolean {
    return this.#pendingBegin === undefined;
  }

  /** The connection, inside the transaction, for code that queries it directly. */
  async connection(): Promise<PoolClient> {
    await this.#sendBegin();
    return this.#client;
  }

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
    const begin = this.#pendingBegin;
    const inlined = begin === undefined ? undefined : inlineParameters(text, values);
    if (begin !== undefined && inlined !== undefined) {
      this.#pendingBegin = undefined;
      // A multi-statement query answers with one result per statement.
      const results = (await this.#client.query(`${begin};\n${inlined}`)) as unknown as QueryResult<R>[];
      return (results[1] as QueryResult<R>).rows;
    }
    await this.#sendBegin();
    const result = await this.#client.query(text, values as unknown[]);
    return result.rows as R[];
  }

  async #sendBegin(): Promise<void> {
    const begin = this.#pendingBegin;
    if (begin === undefined) return;
    this.#pendingBegin = undefined;
    await this.#client.query(begin);
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
  const client = await pool.connect();
  const t = new StoreTransaction(client);
  let value: T;
  try {
    value = await committed(
      client,
      () => fn(t),
      () => t.began,
    );
  } catch (err) {
    observe?.({ statements: t.statements, statementLog: t.statementLog, committed: false });
    throw err;
  }
  observe?.({ statements: t.statements, statementLog: t.statementLog, committed: true });
  t.flushAfterCommit();
  return value;
}

/**
 * `begin` (BEGIN, or BEGIN with an isolation level); fn; COMMIT, on one pooled connection. Any
 * error rolls back; a connection whose ROLLBACK failed is in an unknown state and is destroyed
 * rather than reused.
 */
export async function inTransaction<T>(pool: Pool, begin: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let began = false;
  return committed(
    client,
    async () => {
      began = true;
      await client.query(begin);
      return fn(client);
    },
    () => began,
  );
}

/** Runs `fn` on `client`, then COMMIT if a transaction began; ROLLBACK on any error; releases it. */
async function committed<T>(client: PoolClient, fn: () => Promise<T>, began: () => boolean): Promise<T> {
  let value: T;
  try {
    value = await fn();
    if (began()) await client.query("COMMIT");
  } catch (err) {
    let broken: Error | undefined;
    if (began()) {
      try {
        await client.query("ROLLBACK");
      } catch (rollbackErr) {
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      }
    }
    client.release(broken ?? false);
    throw err;
  }
  client.release();
  return value;
}
