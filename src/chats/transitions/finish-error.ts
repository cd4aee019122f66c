/**
 * FinishError(err): "parks the chat in error and persists last_error = err, replacing any
 * previously stored error. It is allowed when an unarchived chat is waiting or running."
 * W --> E0, R0 --> E0, R1 --> E1.
 */
import type { ChatTx } from "../chat-tx";
import type { LastErrorDetail } from "../../db/schema/chats";

export async function finishError(tx: ChatTx, input: { error: string; detail?: LastErrorDetail | null }): Promise<void> {
  const from = tx.from("FinishError");
  await tx.land("FinishError", from, undefined);
  tx.set({ lastError: input.error, lastErrorDetail: input.detail ?? null });
}
