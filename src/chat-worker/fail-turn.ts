/**
 * FinishError from a runner task, and the turn's outcome with it: "a step whose FinishError
 * transition commits ... records error with the failure". The chat is released in the same
 * transaction when it lands idle (release-when-idle.ts).
 */
import { finishError } from "../chats/transitions/finish-error";
import { fencedUpdate } from "./fenced-db";
import { releaseWhenIdle } from "./release-when-idle";
import type { TaskContext } from "./task-context";

export async function failTurn(ctx: TaskContext, input: Parameters<typeof finishError>[1]): Promise<void> {
  await fencedUpdate(ctx.store, ctx.fence, async (tx) => {
    await finishError(tx, input);
    await releaseWhenIdle(tx);
  });
  ctx.trace.invalidate("error", input.error);
}
