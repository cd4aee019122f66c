/**
 * CommitStep from a runner task, inside the spec's `commit` stage, which carries the generation
 * attempt the step recorded. Every CommitStep of a turn goes through here (steps, tool results,
 * the stop hook's context, compaction), so each one is measured.
 *
 * `then` may apply a transition that follows the step in the same transaction, on the messages the
 * step writes (generation.ts ends a turn this way): what the next task would have done after
 * reading the chat back, without the read and without a transaction of its own. The step's INSERT
 * rides in the round trip of the transaction's next statement (CommitStep), so `then` gets the
 * messages as written; their rows come with the committed result.
 *
 * With `read` (the step's own fenced read, nothing written since: the fence is checked under the
 * lock) the next task starts from the chat as this commit left it instead of reading it back: the
 * read's history plus every row the transaction inserted. Only for transitions that insert history
 * and change no existing row (CommitStep, FinishTurn, EnterRequiresAction). The commit write reads
 * the turn's model candidates for it too (model-for-turn.ts): the next step revalidates the model
 * without a read of its own.
 */
import type { ChatMessageRow } from "../db/schema/chats";
import type { ChatTx } from "../chats/chat-tx";
import type { Committed } from "../chats/store";
import { type CommitStepInput, type CommittedStep, commitStep } from "../chats/transitions/commit-step";
import type { NewMessage } from "../chats/history";
import { type ChatSnapshot, fencedUpdate, turnModelsAtCommit } from "./fenced-db";
import type { TaskContext } from "./task-context";
import type { TurnModelRows } from "../model-configs/turn-model-rows";

export async function commitInStage<T = undefined>(
  ctx: TaskContext,
  input: CommitStepInput,
  then?: (tx: ChatTx, written: readonly NewMessage[]) => Promise<T>,
  read?: ChatSnapshot,
): Promise<Committed<T | undefined> & { inserted: ChatMessageRow[] }> {
  const stage = ctx.trace.nest(ctx.trace.stage("commit"));
  let committed: Committed<{ step: CommittedStep; followed: T | undefined }>;
  try {
    // A `then` may end the turn (FinishTurn), promoting the queue head: read it with the lock.
    committed = await fencedUpdate(
      ctx.store,
      ctx.fence,
      async (tx) => {
        // Registered before the commit's notifications, so it runs first once COMMIT is through;
        // by then tx.chat is the committed row.
        if (read) {
          let models: TurnModelRows | undefined;
          // A commit that ended the turn (or released the chat) has no next model call to read for.
          const nextStepCallsModel = () => tx.chat.status === "running" && tx.chat.workerId !== null;
          tx.checkAtCommit(turnModelsAtCommit((rows) => (models = rows), nextStepCallsModel));
          tx.transaction.afterCommit(() =>
            ctx.startingRead.leave({ chat: tx.chat, history: [...read.history, ...tx.inserted.since(0)], ...(models ? { models } : {}) }),
          );
        }
        const step = await commitStep(tx, input);
        return { step, followed: then ? await then(tx, step.written) : undefined };
      },
      false,
      then !== undefined,
    );
  } catch (error) {
    ctx.trace.leave(stage, { error });
    throw error;
  }
  stage.set({ generation_attempt: committed.chat.generationAttempt });
  ctx.trace.leave(stage);
  return { ...committed, value: committed.value.followed, inserted: committed.value.step.messages };
}
