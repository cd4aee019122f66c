/**
 * The hooks a submission dispatches before it writes anything (spec "Lifecycle hooks": "Prompt
 * submission is evaluated once when the submission is accepted, including queued messages"):
 * session_start when a session begins (a chat is created, a message is edited), then
 * user_prompt_submit for the prompt. Both admit new work, so they take admission slots of the
 * dispatch cap. A deny is a 403 `hook_denied`; a failed dispatch a 502; either way nothing is
 * written. `updated_prompt` replaces the prompt's text (its files stay); the context rows returned
 * go into history right after the prompt, in the same transaction.
 */
import type { NewMessage } from "../chats/history";
import type { ChatMessagePart } from "../db/schema/chats";
import { textOf } from "../hooks/chat";
import { hookContextRows } from "../chats/hook-context-rows";
import { HookDeniedError } from "../hooks/errors";
import { hex } from "../hooks/event-id";
import { type HookChat, isDenied } from "../hooks/events";
import { type CommandContext, ownedBy } from "./context";

export interface PromptSubmission {
  chat: HookChat;
  parts: ChatMessagePart[];
  source: "create" | "send" | "edit";
  /** With the content's digest, what makes the event ids of this submission (a retry repeats them). */
  trigger: readonly (string | number)[];
  sessionStart: boolean;
  busyBehavior?: "queue" | "interrupt";
}

export interface SubmittedPrompt {
  parts: ChatMessagePart[];
  context: NewMessage[];
}

export async function submitPrompt(ctx: CommandContext, submission: PromptSubmission): Promise<SubmittedPrompt> {
  const hooks = ctx.hooks;
  if (!hooks.enabled) return { parts: submission.parts, context: [] };
  const digest = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(submission.parts)))).slice(0, 16);
  const trigger = [submission.source, ...submission.trigger, digest];
  const context: NewMessage[] = [];
  if (submission.sessionStart) {
    const started = await hooks.dispatch({
      event: "session_start",
      chat: submission.chat,
      data: { source: submission.source },
      trigger,
      kind: "admission",
    });
    context.push(...hookContextRows("session_start", started));
  }
  if (submission.parts.length === 0) return { parts: submission.parts, context };
  const response = await hooks.dispatch({
    event: "user_prompt_submit",
    chat: submission.chat,
    data: {
      source: submission.source,
      prompt: textOf(submission.parts),
      content: submission.parts,
      ...(submission.busyBehavior ? { busy_behavior: submission.busyBehavior } : {}),
    },
    trigger,
    kind: "admission",
  });
  if (isDenied(response)) throw new HookDeniedError(response.reason);
  context.push(...hookContextRows("user_prompt_submit", response));
  const parts =
    response.updated_prompt === undefined
      ? submission.parts
      : [{ type: "text" as const, text: response.updated_prompt }, ...submission.parts.filter((p) => p.type !== "text")];
  return { parts, context };
}

/**
 * The chat a send or an edit is about, read before the transaction (the owner check first: the
 * consumer never hears of a chat the caller may not use). Null when hooks are off.
 */
export async function submissionChat(
  ctx: CommandContext,
  chatId: string,
  callerId: string,
): Promise<{ chat: HookChat; snapshotVersion: number } | null> {
  if (!ctx.hooks.enabled) return null;
  const found = ownedBy(await ctx.store.identity(chatId), { chatId, callerId });
  return {
    chat: { id: chatId, organization_id: found.organizationId, owner_id: found.ownerId, parent_chat_id: found.parentChatId },
    snapshotVersion: found.snapshotVersion,
  };
}
