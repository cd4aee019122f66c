/** The abandon task (spec "Abandon chat goroutine"): Abandon, if this runner still owns the chat. */
import { abandon } from "../../chats/transitions/ownership";
import { fencedUpdate } from "../fenced-db";
import type { TaskContext } from "../task-context";

export async function abandonTask(ctx: TaskContext): Promise<void> {
  await fencedUpdate(ctx.store, { ...ctx.fence, status: null }, (tx) => abandon(tx));
}
