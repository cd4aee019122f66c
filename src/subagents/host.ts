/**
 * What the subagent tools need from the parent's runtime: a way to reach a child's own object,
 * which applies the child's transitions (so it sees every change to its chat first and is started
 * by its own Create), and a way to sleep until a child reports a transition. An interface so the
 * tools stay apart from the Durable Object; ChildObjects (child-objects.ts) is its implementation.
 */
import type { ChatCommand } from "../chat-commands/context";
import type { CreateChatCommand } from "../chat-commands/create-chat";
import type { SendMessageCommand, SendMessageResponse } from "../chat-commands/messages";
import type { ChatMessageWire, ChatWire } from "../wire/chat-wire";

/** A child command's answer: its value, or why the child's object refused it, in words the model reads. */
export type ChildAnswer<V> = { ok: true; value: V } | { ok: false; refusal: string };

export interface ChildWatch {
  /**
   * Resolves "reported" at the next transition report from one of the watched children, "timeout"
   * after `ms`; rejects with the signal's reason when the tool call is cancelled.
   */
  next(ms: number, signal: AbortSignal): Promise<"reported" | "timeout">;
  close(): void;
}

export interface SubagentHost {
  createChild(cmd: CreateChatCommand): Promise<ChildAnswer<{ chat: ChatWire; messages: ChatMessageWire[] }>>;
  sendMessage(cmd: SendMessageCommand): Promise<ChildAnswer<SendMessageResponse>>;
  interrupt(cmd: ChatCommand): Promise<ChildAnswer<ChatWire>>;
  /** Registers interest before the caller reads the children's state, so no report is missed in between. */
  watch(childIds: readonly string[]): ChildWatch;
}
