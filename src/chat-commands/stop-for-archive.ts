/**
 * Archiving a chat mid-run, when asked to stop it (PATCH `{archived: true, interrupt: true}`; the
 * agent's-reach issue: "archive the root mid-run stops every descendant"). The spec's SetArchived
 * only leaves W, E0 and E1 and is all or nothing, and a plain PATCH keeps exactly that (409 while
 * anything runs). With `interrupt` the command first interrupts every running member of what it
 * archives (a root's family, or a child alone), waits until all of them have settled, and only
 * then applies the family SetArchived unchanged. Interrupt keeps what each member produced, so nothing committed
 * is lost; a member in requires_action goes back to running when interrupted (its calls get
 * cancellation results) and is interrupted again on the next round.
 *
 * A running member with queued messages is refused up front (409 naming its state): its
 * interruption would promote the queue head and start a new turn, so stopping it would mean
 * running or dropping messages the user queued. Nothing is interrupted in that case.
 */
import { classifyForTransition, TransitionNotAllowedError, type ClassifiedState } from "../chatstate/index";
import type { ChatRow } from "../db/schema/chats";
import type { CommandContext } from "./context";
import { interruptCommand } from "./control";
import { ownershipOf } from "../chatstate/chat-versions";

/** How long the members get to settle before the archive is tried anyway (and refused if one still runs). */
export const SETTLE_TIMEOUT_MS = 15_000;
const SETTLE_POLL_MS = 100;

const SETTLED: readonly ClassifiedState[] = ["W", "E0", "E1", "XW", "XE0", "XE1"];
const QUEUED_RUNNING: readonly ClassifiedState[] = ["R1", "I1", "A1"];

/** R0 and A0 move on when interrupted; I0 is on its way to W unless nothing owns it (then Interrupt finishes it). */
function needsInterrupt(state: ClassifiedState, chat: ChatRow): boolean {
  return state === "R0" || state === "A0" || (state === "I0" && ownershipOf(chat) === "U");
}

export async function stopForArchive(ctx: CommandContext, chatId: string, callerId: string): Promise<void> {
  const others = ctx.otherChats;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (let round = 0; ; round++) {
    const scope = await ctx.store.archiveScope(chatId);
    const members = scope.map(({ chat, queueLength }) => ({
      chat,
      state: classifyForTransition("SetArchived", chat.id, chat, queueLength),
    }));
    const queued = members.find((m) => QUEUED_RUNNING.includes(m.state));
    if (queued) {
      if (round === 0) throw new TransitionNotAllowedError("SetArchived", queued.state);
      return; // a message was queued while stopping: the archive itself refuses it.
    }
    if (members.every((m) => SETTLED.includes(m.state)) || Date.now() >= deadline) return;
    // The chat itself first: a parent that is interrupted stops reacting to its children.
    for (const { chat, state } of members) {
      if (!needsInterrupt(state, chat)) continue;
      const cmd = { chatId: chat.id, callerId };
      // A refused interrupt means the member moved on meanwhile; the next round reads where to.
      if (chat.id === chatId) await interruptCommand(ctx, cmd).catch(() => {});
      else await others.interrupt(cmd);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}
