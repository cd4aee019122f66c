// Builds chat_messages rows for the pure llm tests: ids in call order, everything else defaulted.
import type { NewMessage } from "../../../src/chats/history";
import type { ChatMessagePart, ChatMessageRow } from "../../../src/db/schema/chats";

export class History {
  readonly rows: ChatMessageRow[] = [];

  add(
    role: ChatMessageRow["role"],
    content: ChatMessagePart[],
    flags: Partial<Pick<ChatMessageRow, "modelOnly" | "compressed" | "deleted">> = {},
  ): ChatMessageRow {
    const id = this.rows.length + 1;
    const row: ChatMessageRow = {
      id,
      chatId: "chat",
      role,
      content,
      revision: id,
      queuedMessageId: null,
      modelConfigId: null,
      reasoningEffort: null,
      createdBy: null,
      deleted: flags.deleted ?? false,
      modelOnly: flags.modelOnly ?? false,
      compressed: flags.compressed ?? false,
      usage: null,
      costUsd: null,
      createdAt: new Date(0),
    };
    this.rows.push(row);
    return row;
  }

  /** Rows a transition would insert (e.g. the clear triplet), as committed. */
  addMessages(messages: readonly NewMessage[]): void {
    for (const m of messages) this.add(m.role, m.content, { modelOnly: m.modelOnly ?? false, compressed: m.compressed ?? false });
  }

  system(text: string): ChatMessageRow {
    return this.add("system", [{ type: "text", text }], { modelOnly: true });
  }

  user(text: string, flags: Partial<Pick<ChatMessageRow, "modelOnly" | "compressed" | "deleted">> = {}): ChatMessageRow {
    return this.add("user", [{ type: "text", text }], flags);
  }

  assistant(text: string, flags: Partial<Pick<ChatMessageRow, "modelOnly" | "compressed" | "deleted">> = {}): ChatMessageRow {
    return this.add("assistant", [{ type: "text", text }], flags);
  }

  calls(...calls: { id: string; name: string; args?: unknown }[]): ChatMessageRow {
    return this.add(
      "assistant",
      calls.map((c) => ({ type: "tool-call", tool_call_id: c.id, tool_name: c.name, args: c.args ?? {} })),
    );
  }

  result(id: string, name: string, result: unknown = "ok", isError = false): ChatMessageRow {
    return this.add("tool", [{ type: "tool-result", tool_call_id: id, tool_name: name, result, is_error: isError }]);
  }

  /** A compaction boundary triplet, shaped like the clear one: model-only anchor, then the visible pair. */
  compaction(summary: string, id = `summary_${this.rows.length}`): void {
    this.add("user", [{ type: "text", text: summary }], { modelOnly: true, compressed: true });
    this.add("assistant", [{ type: "tool-call", tool_call_id: id, tool_name: "chat_summarized", args: {} }], { compressed: true });
    this.add("tool", [{ type: "tool-result", tool_call_id: id, tool_name: "chat_summarized", result: { summary }, is_error: false }], {
      compressed: true,
    });
  }
}
