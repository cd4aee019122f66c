/**
 * One Postgres transaction on one pooled connection of the Neon serverless `Pool` (the WebSocket
 * driver: an interactive transaction needs it, the HTTP driver cannot hold a lock across
 * statements). It counts the statements it runs so tests can bound what happens under a row lock,
 * and buffers the effects that may only run after COMMIT.
 *
 * Neither BEGIN nor COMMIT costs a round trip of its own when it can be avoided: BEGIN goes out
 * with the transaction's first statement, and COMMIT with its last (`queryThenCommit`), as one
 * simple-protocol query, when that statement's parameters can be written as literals
 * (inline-parameters.ts); the driver sends one query at a time, so this is the only way to put
 * them in one round trip. A statement that COMMIT follows must veto the transaction, if it may,
 * from inside SQL (raising an error); Postgres skips the rest of a query string after an error,
 * and the transaction is then rolled back as any other. A transaction that runs no statement
 * sends neither BEGIN nor COMMIT.
 *
 * A statement whose rows nothing needs at once can be queued (`queueStatement`): it goes out with
 * the transaction's next statement, in its round trip when both can be inlined, and before COMMIT
 * if none follows. The order of the statements is unchanged; only the round trip it takes is.
 */
import type { Pool, PoolClient, QueryResult } from "@neondatabase/serverless";
import { errorText, logger } from "../log/log";
import { inlineParameters } from "./inline-parameters";
import type { RawRow } from "./rows";

/** A statement held for the next one's round trip (queueStatement). */
interface Queued {
  text: string;
  values: readonly unknown[];
  inlined: string | undefined;
  onRows: (rows: RawRow[]) => void;
}

export class StoreTransaction {
  #statements: string[] = [];
  #queued: Queued[] = [];
  readonly #afterCommit: (() => void)[] = [];
  readonly #client: PoolClient;
  /** BEGIN, until it has gone out. */
  #pendingBegin: string | undefined;
  /** COMMIT went out with the last statement. */
  #committedInline = false;

  constructor(client: PoolClient, begin = "BEGIN") {
    this.#client = client;
    this.#pendingBegin = begin;
  }

  /** Whether BEGIN has gone out (and COMMIT or ROLLBACK must follow, unless it did already). */
  get began(): boolean {
    return this.#pendingBegin === undefined;
  }

  /** Whether COMMIT is still to be sent: BEGIN went out, and COMMIT did not ride with a statement. */
  get open(): boolean {
    return this.began && !this.#committedInline;
  }

  /** The connection, inside the transaction, for code that queries it directly. */
  async connection(): Promise<PoolClient> {
    await this.flushQueued();
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
    this.#record(text);
    // Inlined only to share a round trip (BEGIN's, or queued statements'): alone, it keeps its parameters.
    const queued = this.#queued.splice(0);
    const inlined = this.#pendingBegin === undefined && queued.length === 0 ? undefined : inlineParameters(text, values);
    if (inlined !== undefined && allInlined(queued)) return (await this.#withQueued<R>(queued, [inlined]))[0] as R[];
    await this.#sendQueued(queued);
    await this.#sendBegin();
    const result = await this.#client.query(text, values as unknown[]);
    return result.rows as R[];
  }

  /**
   * Holds `text` until the transaction's next statement (see the file header). `onRows` gets its
   * rows when it has gone out, before that statement's caller resumes. A statement that fails
   * fails the one it went out with, and the transaction.
   */
  queueStatement(text: string, values: readonly unknown[], onRows: (rows: RawRow[]) => void): void {
    this.#record(text);
    this.#queued.push({ text, values, inlined: inlineParameters(text, values), onRows });
  }

  /** Whether a queued statement has not gone out yet. */
  get hasQueued(): boolean {
    return this.#queued.length > 0;
  }

  /** Sends the queued statements now, on their own. */
  async flushQueued(): Promise<void> {
    await this.#sendQueued(this.#queued.splice(0));
  }

  /**
   * Several statements in one round trip when all their parameters can be inlined (with BEGIN
   * too, when they are the first), one after the other otherwise; the rows of each, in order.
   * Postgres runs them in order and stops at the first error, which rejects the whole call.
   */
  async queryEach(statements: readonly { text: string; values?: readonly unknown[] }[]): Promise<RawRow[][]> {
    const inlined = statements.map((s) => inlineParameters(s.text, s.values ?? []));
    if (this.#queued.length > 0 && (!allInlined(this.#queued) || inlined.some((text) => text === undefined))) await this.flushQueued();
    if (statements.length + this.#queued.length < 2 || inlined.some((text) => text === undefined)) {
      const rows: RawRow[][] = [];
      for (const s of statements) rows.push(await this.query(s.text, s.values));
      return rows;
    }
    for (const s of statements) this.#record(s.text);
    return this.#withQueued(this.#queued.splice(0), inlined as string[]);
  }

  /**
   * The transaction's last statement, with COMMIT in its round trip when its parameters can be
   * inlined (and BEGIN too, when it is also the first). Otherwise it runs as `query` does and
   * COMMIT follows on its own. Whatever may veto the transaction must raise inside `text`: once
   * this returns, the transaction may have committed. No statement may follow.
   */
  async queryThenCommit<R extends RawRow = RawRow>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    const inlined = inlineParameters(text, values);
    if (inlined === undefined) return this.query<R>(text, values);
    this.#record(text);
    if (!allInlined(this.#queued)) await this.flushQueued();
    const [rows] = await this.#withQueued<R>(this.#queued.splice(0), [inlined, "COMMIT"]);
    this.#committedInline = true;
    return rows as R[];
  }

  /**
   * Inlined statements as one simple-protocol query, BEGIN first when it has not gone out yet;
   * the rows of each given statement. There must be two statements in all, BEGIN included: the
   * driver answers a multi-statement query with one result per statement, a single one with one.
   */
  async #together<R extends RawRow>(statements: readonly string[]): Promise<R[][]> {
    const begin = this.#pendingBegin;
    this.#pendingBegin = undefined;
    const all = begin === undefined ? statements : [begin, ...statements];
    const results = (await this.#client.query(all.join(";\n"))) as unknown as QueryResult<R>[];
    const rows = results.map((result) => result.rows);
    return begin === undefined ? rows : rows.slice(1);
  }

  /** `statements` after the queued ones, in one round trip; each queued one gets its rows, the rest are answered. */
  async #withQueued<R extends RawRow>(queued: readonly Queued[], statements: readonly string[]): Promise<R[][]> {
    const rows = await this.#together<R>([...queued.map((q) => q.inlined as string), ...statements]);
    for (const [i, q] of queued.entries()) q.onRows(rows[i] as RawRow[]);
    return rows.slice(queued.length);
  }

  /** The queued statements on their own: one round trip when they can be inlined. */
  async #sendQueued(queued: readonly Queued[]): Promise<void> {
    if (queued.length === 0) return;
    if (allInlined(queued) && queued.length + (this.#pendingBegin === undefined ? 0 : 1) >= 2) {
      await this.#withQueued(queued, []);
      return;
    }
    await this.#sendBegin();
    for (const q of queued) q.onRows((await this.#client.query(q.text, q.values as unknown[])).rows as RawRow[]);
  }

  #record(text: string): void {
    if (this.#committedInline) throw new Error("a statement after the transaction's COMMIT went out");
    // The head only: the whole text of a commit write is kilobytes, copied on every statement.
    this.#statements.push(text.trimStart().slice(0, 160).replace(/\s+/g, " ").slice(0, 80).trimEnd());
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
      async () => {
        const result = await fn(t);
        // A queued statement no later one took goes out before COMMIT.
        await t.flushQueued();
        return result;
      },
      () => t.open,
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

/**
 * Runs `fn` on `client`, then COMMIT if a transaction is open; ROLLBACK on any error (harmless
 * when the error was COMMIT's own: the transaction is over then); releases it.
 */
async function committed<T>(client: PoolClient, fn: () => Promise<T>, open: () => boolean): Promise<T> {
  let value: T;
  try {
    value = await fn();
    if (open()) await client.query("COMMIT");
  } catch (err) {
    let broken: Error | undefined;
    if (open()) {
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

const allInlined = (queued: readonly Queued[]) => queued.every((q) => q.inlined !== undefined);
