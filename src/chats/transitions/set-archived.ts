/**
 * SetArchived(archived): "sets or clears the archived marker for one chat." W, E0, E1 <--> XW,
 * XE0, XE1. PATCH on a root applies it "to the root and all descendants atomically. If any chat in
 * the family cannot apply the requested archived-state transition, the whole operation fails
 * without changing any chat. Unarchiving an individual child chat remains guarded: it must fail
 * while its parent is archived." The family update "locks the root chat row first"; Create takes
 * a shared lock on the same row, so a racing child is either included or refused.
 *
 * Descendants that already have the requested value are left alone (a family can be partly
 * archived after a child was archived on its own); the root itself must make the move, so
 * archiving an archived root is rejected like any edge the table lacks. The endpoint skips the
 * call when the request does not change `archived` ("doesn't emit any state transitions").
 *
 * ChatStore.setArchived runs it: `setArchived` on a child inside `update`; for a root, in one
 * transaction, `lockFamily`, the caller's recheck, `setFamilyArchived`, then the store publishes
 * every changed member after COMMIT.
 */
import {
  ChatNotFoundError,
  classifyForTransition,
  isAllowed,
  landing,
  TransitionNotAllowedError,
  type ExecutionState,
} from "../../chatstate/index";
import type { ChatTx } from "../chat-tx";
import { committedExtrasSql, committedFromRaw, type CommittedChat } from "../commit-write";
import { ParentArchivedError, StoreInvariantError } from "../errors";
import { chatFromRaw, type Queryable } from "../../db/rows";
import type { ChatRow } from "../../db/schema/chats";
import type { StoreTransaction } from "../../db/transaction";

const variantOf = (archived: boolean) => (archived ? "archive" : "unarchive") as "archive" | "unarchive";

/** SetArchived on the locked chat only, with the child guard. */
export async function setArchived(tx: ChatTx, input: { archived: boolean }): Promise<void> {
  const variant = variantOf(input.archived);
  const from = tx.from("SetArchived", variant);
  const parentId = tx.chat.parentChatId;
  if (!input.archived && parentId !== null) {
    const [parent] = await tx.query<{ archived: boolean }>(`SELECT archived FROM chats WHERE id = $1`, [parentId]);
    if (parent?.archived) throw new ParentArchivedError(tx.chatId, parentId);
  }
  await tx.land("SetArchived", from, variant);
}

export interface FamilyArchiveResult {
  /** Every chat whose archived marker changed, the root first. */
  chats: ChatRow[];
  statements: number;
  /** The recheck said no: nothing was written. */
  skipped: boolean;
}

export interface FamilyArchiveOptions {
  /**
   * Runs once the root and every descendant are locked, before anything is decided; false skips
   * the family without a write. The auto-archive loop's "rechecks the candidate conditions".
   * Roots only.
   */
  recheck?: (t: StoreTransaction, family: readonly ChatRow[]) => Promise<boolean>;
}

/**
 * Whether `chatId` is a child chat (archived alone) rather than a root (archived with its family).
 * parent_chat_id never changes, so the store reads it before its transaction.
 */
export async function isChildChat(db: Queryable, chatId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT parent_chat_id FROM chats WHERE id = $1`, [chatId]);
  const row = rows[0];
  if (row === undefined) throw new ChatNotFoundError(chatId);
  return row.parent_chat_id !== null;
}

/** Locks the root chat row, then every descendant (see the file header); the root first. */
export async function lockFamily(t: StoreTransaction, rootId: string): Promise<ChatRow[]> {
  const [rootRaw] = await t.query(`SELECT * FROM chats WHERE id = $1 FOR UPDATE`, [rootId]);
  if (rootRaw === undefined) throw new ChatNotFoundError(rootId);
  const descendants = await t.query(`SELECT * FROM chats WHERE root_chat_id = $1 ORDER BY created_at, id FOR UPDATE`, [rootId]);
  return [chatFromRaw(rootRaw), ...descendants.map(chatFromRaw)];
}

/**
 * SetArchived on a locked family (`lockFamily`), all or nothing. Returns every chat whose marker
 * changed as committed, the root first; the store publishes them. `staleThresholdMs` decides the
 * ownership hint, as in every commit write.
 */
export async function setFamilyArchived(
  t: StoreTransaction,
  family: readonly ChatRow[],
  archived: boolean,
  staleThresholdMs: number,
): Promise<CommittedChat[]> {
  const variant = variantOf(archived);
  const counts = await t.query<{ chat_id: string; n: number }>(
    `SELECT chat_id, count(*)::int AS n FROM chat_queued_messages WHERE chat_id = ANY($1::uuid[]) GROUP BY chat_id`,
    [family.map((c) => c.id)],
  );
  const queueLength = new Map(counts.map((c) => [c.chat_id, c.n]));

  // Decide every member before writing any: all or nothing.
  const expected = new Map<string, ExecutionState>();
  for (const [i, chat] of family.entries()) {
    const from = classifyForTransition("SetArchived", chat.id, chat, queueLength.get(chat.id) ?? 0);
    if (i > 0 && chat.archived === archived) continue;
    if (!isAllowed("SetArchived", from, variant)) throw new TransitionNotAllowedError("SetArchived", from);
    expected.set(chat.id, landing("SetArchived", from, variant));
  }

  // One statement bumps every member's snapshot and flips the marker; nothing else is written.
  const rows = await t.query(
    `UPDATE chats SET snapshot_version = snapshot_version + 1, archived = $2, updated_at = now()
     WHERE id = ANY($1::uuid[]) RETURNING *, ${committedExtrasSql(3)}`,
    [[...expected.keys()], archived, staleThresholdMs],
  );
  const committed = new Map<string, CommittedChat>(rows.map((raw) => [String(raw.id), committedFromRaw(raw)]));
  const changed: CommittedChat[] = [];
  for (const [id, state] of expected) {
    const c = committed.get(id);
    if (c === undefined || c.state !== state)
      throw new StoreInvariantError(`family member ${id} landed in ${c?.state ?? "N"}, the table says ${state}`);
    changed.push(c);
  }
  return changed;
}
