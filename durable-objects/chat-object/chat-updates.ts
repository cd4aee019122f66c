/**
 * What a ChatObject does with a notification about its own chat, whoever ran the transition: the
 * spec's receiver watermark drops duplicates and reordering; open streams get the versions as
 * hints; the worker's runner processes the event; a turn that ended closes its MCP sessions; and a
 * subagent that settled wakes its parent's wait_agent. An ownership hint wakes the worker.
 */
import type { ChatUpdatePayload } from "../../src/chats/notifier";
import { isSettled } from "../../src/subagents/children";
import type { ChatRuntime } from "./chat-runtime";
import type { OtherChatObjects } from "./other-chat-objects";
import { hintsFromPayload, type StreamSockets } from "./stream-sockets";

export class ChatUpdates {
  /** The highest snapshot_version seen for this chat (the spec's receiver watermark). */
  #watermark = 0;

  constructor(
    private readonly runtime: ChatRuntime,
    private readonly streams: StreamSockets,
    private readonly others: OtherChatObjects,
  ) {}

  /** `chat:update`, in memory from this object's store or by RPC from another object or the cron. */
  chatUpdated(payload: ChatUpdatePayload): void {
    // Receivers drop anything at or below the watermark: duplicates and reordering are harmless.
    if (payload.snapshot_version <= this.#watermark) return;
    this.#watermark = payload.snapshot_version;
    // The turn is over (finished, failed, interrupted or archived): its MCP sessions close.
    if (payload.archived || payload.status === "waiting" || payload.status === "error") this.runtime.mcp.closeAll();
    this.streams.hint(hintsFromPayload(payload));
    this.runtime.chatWorker?.chatUpdated(payload);
    // A subagent that is done for now wakes its parent's wait_agent (a hint: the parent re-reads).
    if (payload.parent_chat_id !== null && isSettled(payload)) this.others.childChanged(payload.parent_chat_id, payload.chat_id);
  }

  /** `chat:ownership`: the chat is runnable and unowned; the worker tries to acquire it. */
  ownershipHint(): void {
    // wake() does not reject: a failed acquisition is logged and retried by the worker itself.
    const worker = this.runtime.chatWorker;
    if (worker) this.runtime.keepAlive(worker.wake());
  }
}
