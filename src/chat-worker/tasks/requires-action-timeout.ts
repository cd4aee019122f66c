/**
 * The requires-action timeout task (spec "Dynamic tools timeout goroutine"): wait for the
 * chat's requires_action_deadline_at, then CancelRequiresAction (synthetic cancellation results,
 * and the turn continues).
 */
import { cancelRequiresAction } from "../../chats/transitions/requires-action";
import { fencedRead, fencedUpdate } from "../fenced-db";
import type { TaskContext } from "../task-context";
import { prefetchFor } from "../../chats/lock-prefetch";

export async function requiresActionTimeoutTask(ctx: TaskContext): Promise<void> {
  const { chat } = await fencedRead(ctx.store, ctx.fence, false);
  const deadline = chat.requiresActionDeadlineAt?.getTime() ?? ctx.now().getTime();
  const wait = deadline - ctx.now().getTime();
  if (wait > 0) await ctx.sleep(wait, ctx.signal);
  await fencedUpdate(ctx.store, ctx.fence, (tx) => cancelRequiresAction(tx), prefetchFor(cancelRequiresAction, undefined));
}
