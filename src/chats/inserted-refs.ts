/**
 * A transition's own history rows, named by their places among the rows its transaction inserts.
 * An INSERT may ride with the transaction's next statement (often the commit write), so its rows
 * may not exist yet when the transition returns: the transition returns these references, plain
 * data that can be copied and logged, and the store puts the rows in their places once the
 * transaction has committed (ChatStore: `Committed.value` is `Resolved<T>`).
 */
import type { ChatMessageRow } from "../db/schema/chats";
import { StoreInvariantError } from "./errors";

/** The rows inserted at places [from, to) of the transaction's inserted rows. */
export class InsertedRange {
  constructor(
    readonly from: number,
    readonly to: number,
  ) {}
}

/** The row inserted at place `at` of the transaction's inserted rows. */
export class InsertedRow {
  constructor(readonly at: number) {}
}

type Leaf = Date | string | number | boolean | bigint | symbol | null | undefined | ((...args: never[]) => unknown);

/** `T` with each reference replaced by its rows: what a committed transaction's value is. */
export type Resolved<T> = T extends InsertedRange
  ? ChatMessageRow[]
  : T extends InsertedRow
    ? ChatMessageRow
    : T extends Leaf
      ? T
      : T extends readonly (infer U)[]
        ? Resolved<U>[]
        : T extends object
          ? { [K in keyof T]: Resolved<T[K]> }
          : T;

/**
 * `value` with every reference in it (through plain objects and arrays) replaced by its rows out
 * of `inserted`, every row the transaction inserted, in order. What holds no reference is returned
 * as it is.
 */
export function resolveInserted<T>(value: T, inserted: readonly ChatMessageRow[], chatId: string): Resolved<T> {
  return resolve(value, inserted, chatId) as Resolved<T>;
}

function resolve(value: unknown, inserted: readonly ChatMessageRow[], chatId: string): unknown {
  if (value instanceof InsertedRange) return rowsAt(inserted, value.from, value.to, chatId);
  if (value instanceof InsertedRow) return rowsAt(inserted, value.at, value.at + 1, chatId)[0];
  if (Array.isArray(value)) {
    const items = value.map((item) => resolve(item, inserted, chatId));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value)) {
    const resolved = resolve(field, inserted, chatId);
    if (resolved === field) continue;
    copy ??= { ...value };
    copy[key] = resolved;
  }
  return copy ?? value;
}

function rowsAt(inserted: readonly ChatMessageRow[], from: number, to: number, chatId: string): ChatMessageRow[] {
  if (from < 0 || to > inserted.length || from > to)
    throw new StoreInvariantError(`chat ${chatId}: rows [${from}, ${to}) were asked of ${inserted.length} inserted`);
  return inserted.slice(from, to);
}
