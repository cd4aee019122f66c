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
 */
import {
  ChatNotFoundError,
  classifyForTransition,
  isAllowed,
  landing,
  TransitionNotAllowedError,
  type ExecutionState,
} from "../../chatstate/index";
import { committedExtrasSql, committedFromRaw, publishAfterCommit, type ChatTx, type CommittedChat } from "../chat-tx";
import { ParentArchivedError, StoreInvariantError } from "../errors";
import { chatFromRaw } from "../rows";
import type { ChatRow } from "../schema/chats";
import type { ChatStore } from "../store";
import type { StoreTransaction } from "../transaction";

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

/** PATCH archived: the whole family for a root chat, the chat alone for a child. */
export async function setFamilyArchived(
  store: ChatStore,
  chatId: string,
  archived: boolean,
  options: FamilyArchiveOptions = {},
): Promise<FamilyArchiveResult> {
  // parent_chat_id never changes, so reading it outside the transaction is safe.
  const lookup = await store.pool.query<{ parent_chat_id: string | null }>(`SELECT parent_chat_id FROM chats WHERE id = $1`, [chatId]);
  const row = lookup.rows[0];
  if (row === undefined) throw new ChatNotFoundError(chatId);
  if (row.parent_chat_id !== null) {
    if (options.recheck) throw new StoreInvariantError(`a family recheck was given for child chat ${chatId}`);
    const committed = await store.update(chatId, (tx) => setArchived(tx, { archived }));
    return { chats: [committed.chat], statements: committed.statements, skipped: false };
  }
  const variant = variantOf(archived);
  return store.transaction(async (t) => {
    const [rootRaw] = await t.query(`SELECT * FROM chats WHERE id = $1 FOR UPDATE`, [chatId]);
    if (rootRaw === undefined) throw new ChatNotFoundError(chatId);
    const descendants = await t.query(`SELECT * FROM chats WHERE root_chat_id = $1 ORDER BY created_at, id FOR UPDATE`, [chatId]);
    const family = [chatFromRaw(rootRaw), ...descendants.map(chatFromRaw)];
    if (options.recheck && !(await options.recheck(t, family))) return { chats: [], statements: t.statements, skipped: true };
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
      [[...expected.keys()], archived, store.options.staleThresholdMs],
    );
    const committed = new Map<string, CommittedChat>(rows.map((raw) => [String(raw.id), committedFromRaw(raw)]));
    const chats: ChatRow[] = [];
    for (const [id, state] of expected) {
      const c = committed.get(id);
      if (c === undefined || c.state !== state)
        throw new StoreInvariantError(`family member ${id} landed in ${c?.state ?? "N"}, the table says ${state}`);
      publishAfterCommit(t, store.notifier, c);
      chats.push(c.chat);
    }
    return { chats, statements: t.statements, skipped: false };
  });
}
