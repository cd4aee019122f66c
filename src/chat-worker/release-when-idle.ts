/**
 * Abandon in the transaction that ends a turn, when the chat lands where the runner's next event
 * would spawn the abandon task (not runnable: waiting, error, or archived). The release then costs
 * no transaction of its own: the runner sees the committed row without its owner and is cleaned up
 * as after the abandon task's commit ("another worker or runner owns the chat now"). Ownership is
 * orthogonal to the execution state, so the two transitions share the transaction as Acquire
 * shares a send's.
 */
import { isRunnable } from "../chatstate/index";
import type { ChatTx } from "../chats/chat-tx";
import { abandon } from "../chats/transitions/ownership";

export async function releaseWhenIdle(tx: ChatTx): Promise<void> {
  if (!isRunnable(tx.state()) && tx.ownership() === "O") await abandon(tx);
}
