/**
 * The interrupt task (spec "Interrupt goroutine"): close the current attempt's episode, read what
 * it had streamed, and apply FinishInterruption with that partial assistant message (or none).
 * "Interrupt wins": parts a cancelled generation still adds after the close are dropped.
 */
import type { NewMessage } from "../../chats/history";
import type { ChatMessagePart } from "../../db/schema/chats";
import { finishInterruption } from "../../chats/transitions/finish-interruption";
import { type StreamPart, isProviderToolCall, isToolCallDelta } from "../../wire/stream-part";
import { isPartBufferError } from "../../part-buffer/errors";
import { episodeKey } from "../../part-buffer/part-buffer";
import { fencedRead, fencedUpdate } from "../fenced-db";
import { releaseWhenIdle } from "../release-when-idle";
import type { TaskContext } from "../task-context";
import { prefetchFor } from "../../chats/lock-prefetch";

export async function interruptTask(ctx: TaskContext): Promise<void> {
  const { chat } = await fencedRead(ctx.store, ctx.fence, false);
  const key = episodeKey(chat.id, chat.historyVersion, chat.generationAttempt);
  ctx.parts.closeEpisode(key);
  let streamed: StreamPart[] = [];
  try {
    streamed = ctx.parts.getParts(key).map((p) => p.part);
  } catch (err) {
    if (!isPartBufferError(err)) throw err;
  }
  const content = partialContent(streamed);
  const partial: NewMessage[] = content.length > 0 ? [{ role: "assistant", content }] : [];
  // The open turn is marked before the commit, so a queued prompt it promotes cannot close it first.
  ctx.trace.joinOpen();
  ctx.trace.invalidate("interrupted");
  try {
    const finished = await fencedUpdate(
      ctx.store,
      ctx.fence,
      async (tx) => {
        const value = await finishInterruption(tx, partial.length > 0 ? { partial } : {});
        await releaseWhenIdle(tx);
        return value;
      },
      prefetchFor(finishInterruption, undefined),
    );
    if (finished.value.promoted) ctx.trace.queueWait(finished.value.promoted.queued.createdAt);
  } finally {
    ctx.trace.settle();
  }
}

/**
 * Streamed parts to message content: deltas joined, complete tool calls kept (FinishInterruption
 * answers them); argument fragments and the provider's own calls left out, as before.
 */
export function partialContent(parts: readonly StreamPart[]): ChatMessagePart[] {
  const content: ChatMessagePart[] = [];
  for (const part of parts) {
    const last = content.at(-1);
    if (part.type === "text" || part.type === "reasoning") {
      const type = part.type;
      if (last?.type === type) last.text += part.text;
      else content.push({ type, text: part.text });
    } else if (part.type === "tool-call" && !isToolCallDelta(part) && !isProviderToolCall(part)) {
      content.push({ type: "tool-call", tool_call_id: part.tool_call_id, tool_name: part.tool_name, args: part.args });
    }
  }
  return content.filter((p) => p.type !== "text" || p.text.length > 0);
}
