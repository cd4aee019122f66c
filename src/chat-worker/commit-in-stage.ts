/**
 * CommitStep from a runner task, inside the spec's `commit` stage, which carries the generation
 * attempt the step recorded. Every CommitStep of a turn goes through here (steps, tool results,
 * the stop hook's context, compaction), so each one is measured.
 *
 * `then` may apply a transition that follows the step in the same transaction, on the rows the
 * step inserted (generation.ts ends a turn this way): what the next task would have done after
 * reading the chat back, without the read and without a transaction of its own.
 */
import type { ChatMessageRow } from "../db/schema/chats";
import type { ChatTx } from "../chats/chat-tx";
import type { Committed } from "../chats/store";
import { type CommitStepInput, commitStep } from "../chats/transitions/commit-step";
import { fencedUpdate } from "./fenced-db";
import type { TaskContext } from "./task-context";

export async function commitInStage<T = undefined>(
  ctx: TaskContext,
  input: CommitStepInput,
  then?: (tx: ChatTx, inserted: readonly ChatMessageRow[]) => Promise<T>,
): Promise<Committed<T | undefined>> {
  const stage = ctx.trace.stage("commit");
  return ctx.trace.within(stage, async () => {
    const committed = await fencedUpdate(ctx.store, ctx.fence, async (tx) => {
      const { messages } = await commitStep(tx, input);
      return then ? then(tx, messages) : undefined;
    });
    stage.set({ generation_attempt: committed.chat.generationAttempt });
    return committed;
  });
}
