/**
 * Every database access of a task goes through here, under the chat's row lock and the task's
 * fence: reads in a short transaction holding the row FOR SHARE, writes inside ChatStore.update.
 * A fence mismatch throws FenceError and, for writes, rolls the transition back.
 */
import type { ChatTx } from "../chats/chat-tx";
import { listMessages } from "../chats/queries";
import { chatFromRaw } from "../db/rows";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import type { ChatStore, Committed } from "../chats/store";
import { ChatNotFoundError } from "../chatstate/errors";
import { checkFence, type Fence } from "./fence";

export interface ChatSnapshot {
  chat: ChatRow;
  /** Every row in order, deleted and model-only ones included (prompt assembly picks). */
  history: ChatMessageRow[];
}

export async function fencedRead(store: ChatStore, fence: Fence, withHistory = true): Promise<ChatSnapshot> {
  return store.transaction(async (t) => {
    const [raw] = await t.query(`SELECT * FROM chats WHERE id = $1 FOR SHARE`, [fence.chatId]);
    if (raw === undefined) throw new ChatNotFoundError(fence.chatId);
    const chat = chatFromRaw(raw);
    checkFence(chat, fence);
    const history = withHistory ? await listMessages(t.client, fence.chatId, { includeDeleted: true, includeModelOnly: true }) : [];
    return { chat, history };
  });
}

/** `prefetchTail`: the transition reads the active history tail (saves a statement). */
export function fencedUpdate<T>(
  store: ChatStore,
  fence: Fence,
  fn: (tx: ChatTx) => Promise<T>,
  prefetchTail = false,
): Promise<Committed<T>> {
  return store.update(
    fence.chatId,
    async (tx) => {
      checkFence(tx.chat, fence);
      return fn(tx);
    },
    { prefetchTail },
  );
}
