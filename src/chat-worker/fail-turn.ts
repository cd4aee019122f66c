/**
 * FinishError from a runner task, and the turn's outcome with it: "a step whose FinishError
 * transition commits ... records error with the failure".
 */
import { finishError } from "../chats/transitions/finish-error";
import { fencedUpdate } from "./fenced-db";
import type { TaskContext } from "./task-context";

export async function failTurn(ctx: TaskContext, input: Parameters<typeof finishError>[1]): Promise<void> {
  await fencedUpdate(ctx.store, ctx.fence, (tx) => finishError(tx, input));
  ctx.trace.invalidate("error", input.error);
}
