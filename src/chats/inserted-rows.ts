/**
 * The history rows one chat transaction has inserted, and its cached active tail kept in step
 * with them. An INSERT may be queued to ride with the transaction's next statement (often the
 * commit write): its messages are counted at once, and its rows take their places when they
 * arrive, so a transition's own rows are known by position before they exist. Every message
 * written, queued or not, is shown to the locked row's model choice (ChatTx.noteModelChoice).
 */
import { messageFromRaw, type RawRow } from "../db/rows";
import type { ChatMessageRow } from "../db/schema/chats";
import type { StoreTransaction } from "../db/transaction";
import { InsertedRange } from "./inserted-refs";
import { ACTIVE_TAIL_SQL } from "./active-tail";

/** What a written message may change on its chat's row. */
export interface ModelChoices<Message> {
  noteModelChoice(message: Message | ChatMessageRow): void;
}

/** `Message`: what an INSERT was queued with (history.ts NewMessage). */
export class InsertedRows<Message = unknown> {
  #rows: ChatMessageRow[] = [];
  /** Each queued INSERT's messages until it goes out. */
  #unsent: Message[][] = [];
  /** Active history from the last active assistant message onwards; undefined until read. */
  #tail: ChatMessageRow[] | undefined;

  constructor(
    private readonly t: StoreTransaction,
    private readonly chatId: string,
    tail: ChatMessageRow[] | undefined,
    private readonly row: ModelChoices<Message>,
  ) {
    this.#tail = tail;
  }

  /** Active history from the last active assistant message onwards (empty when there is none), read once per transaction. */
  async activeTail(): Promise<readonly ChatMessageRow[]> {
    if (this.#tail === undefined) {
      // A queued INSERT goes out first in the read's own round trip, and the read sees its rows.
      const rows = await this.t.query(ACTIVE_TAIL_SQL, [this.chatId]);
      this.#tail = rows.map(messageFromRaw);
    } else if (this.t.hasQueued) {
      // Its rows join the cached tail when it goes out: send it first.
      await this.t.flushQueued();
    }
    return this.#tail;
  }

  /**
   * Queues an INSERT of `messages` for the transaction's next statement (StoreTransaction.
   * queueStatement); `onRows` gets its rows then, and must hand them to `arrived`. The row's model
   * choice follows `messages` at once (the commit write may be the statement it goes with).
   */
  queueInsert(text: string, values: readonly unknown[], messages: readonly Message[], onRows: (rows: readonly RawRow[]) => void): void {
    for (const message of messages) this.row.noteModelChoice(message);
    const batch = [...messages];
    this.#unsent.push(batch);
    this.t.queueStatement(text, values, (rows) => {
      this.#unsent = this.#unsent.filter((b) => b !== batch);
      onRows(rows);
    });
  }

  /** How many messages were inserted so far, queued INSERTs counted (their rows take these places). */
  get count(): number {
    return this.#rows.length + this.#unsent.reduce((n, batch) => n + batch.length, 0);
  }

  /** The messages inserted since `count` was `mark`, in order (a transition's own rows). */
  since(mark: number): ChatMessageRow[] {
    return this.#rows.slice(mark);
  }

  /** The places of the messages inserted since `count` was `mark`, up to now: a transition's own rows, resolved after COMMIT. */
  rangeSince(mark: number): InsertedRange {
    return new InsertedRange(mark, this.count);
  }

  /** A transition's result: `fields` with `messages`, the places of the rows it inserted since `count` was `mark`. */
  withRowsSince<T extends object>(mark: number, fields: T): T & { readonly messages: InsertedRange } {
    return { ...fields, messages: this.rangeSince(mark) };
  }

  /** Every message inserted so far, in order; after COMMIT, every one the transaction inserted. */
  get rows(): readonly ChatMessageRow[] {
    return this.#rows;
  }

  /** Rows inserted (by a statement of their own, or a queued INSERT that went out): they join the list and, when it is cached, the tail. */
  arrived(rows: readonly ChatMessageRow[]): void {
    for (const row of rows) {
      this.row.noteModelChoice(row);
      this.#rows.push(row);
      if (this.#tail === undefined) continue;
      if (row.role === "assistant") this.#tail = [row];
      else if (this.#tail.length > 0) this.#tail.push(row);
    }
  }

  /** The messages of queued INSERTs that have not gone out yet, in order (not in the cached tail yet). */
  get unsent(): readonly Message[] {
    return this.#unsent.flat();
  }

  /** The active tail as far as the transaction has it, without a read; undefined before the first. */
  get tail(): readonly ChatMessageRow[] | undefined {
    return this.#tail;
  }

  /** The tail as read now, or as what is left of it after a soft delete (cutAtUserMessage). */
  replaceTail(rows: readonly ChatMessageRow[]): void {
    this.#tail = [...rows];
  }
}
