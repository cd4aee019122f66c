/**
 * CommitStep from a runner task, inside the spec's `commit` stage, which carries the generation
 * attempt the step recorded. Every CommitStep of a turn goes through here (steps, tool results,
 * the stop hook's context, compaction), so each one is measured.
 */
import { type CommitStepInput, commitStep } from "../chats/transitions/commit-step";
import { fencedUpdate } from "./fenced-db";
import type { TaskContext } from "./task-context";

export async function commitInStage(ctx: TaskContext, input: CommitStepInput): Promise<void> {
  const stage = ctx.trace.stage("commit");
  await ctx.trace.within(stage, async () => {
    const committed = await fencedUpdate(ctx.store, ctx.fence, (tx) => commitStep(tx, input));
    stage.set({ generation_attempt: committed.chat.generationAttempt });
  });
}
