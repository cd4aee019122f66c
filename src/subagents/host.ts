/**
 * What the subagent tools need from the parent's runtime: a way to reach a child's own object,
 * which applies the child's transitions (so it sees every change to its chat first and is started
 * by its own Create), and a way to sleep until a child reports a transition. An interface so the
 * tools stay apart from the Durable Object and the chat commands; ChildObjects (child-objects.ts) is
 * its implementation, and the requests below are the commands' shapes as far as the tools fill them.
 */
import type { ChatWire } from "../wire/chat-wire";

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

/** A command on a child: the child, and the owner it runs for (the parent's). */
export interface ChildCommand {
  chatId: string;
  callerId: string;
}

type TextPart = { type: "text"; text: string };

/** Create, for a child of `parentChatId` in the parent's organization. */
export interface ChildCreate extends ChildCommand {
  organizationId: string;
  parentChatId: string;
  content: TextPart[];
  title?: string | undefined;
  systemPrompt: string;
  modelConfigId?: string | undefined;
  reasoningEffort?: string | undefined;
  labels: Record<string, string>;
}

/** SendMessage to a child. */
export interface ChildSend extends ChildCommand {
  content: TextPart[];
  busyBehavior: "queue" | "interrupt";
}

export interface SubagentHost {
  createChild(cmd: ChildCreate): Promise<ChildAnswer<{ chat: ChatWire }>>;
  sendMessage(cmd: ChildSend): Promise<ChildAnswer<{ queued: boolean }>>;
  interrupt(cmd: ChildCommand): Promise<ChildAnswer<ChatWire>>;
  /** Registers interest before the caller reads the children's state, so no report is missed in between. */
  watch(childIds: readonly string[]): ChildWatch;
}
