/**
 * The SDK's fold of stream events (client/src/chat-state.ts): idempotent, ordered, and resume
 * cursors that never run ahead of what was received.
 */
import { describe, expect, it } from "vitest";
import {
  applyEvent,
  type ChatState,
  type ChatStreamEvent,
  initialChatState,
  isStreamClosingEvent,
  resumeCursors,
  type StreamPart,
} from "../../../client/src/chat-state";
import { streamClosingEvent } from "../../../src/wire/stream-events";

const CHAT = "00000000-0000-4000-8000-000000000001";

function message(id: number, role: "user" | "assistant", revision: number, text: string, at: string): ChatStreamEvent {
  return {
    type: "message",
    chat_id: CHAT,
    message: {
      id,
      chat_id: CHAT,
      role,
      content: [{ type: "text", text }],
      revision,
      queued_message_id: null,
      model_config_id: null,
      reasoning_effort: null,
      created_by: null,
      created_at: at,
    } as never,
  };
}

function part(
  seq: number,
  p: Extract<ChatStreamEvent, { type: "message_part" }>["message_part"]["part"],
  hv = 2,
  attempt = 1,
): ChatStreamEvent {
  return {
    type: "message_part",
    chat_id: CHAT,
    message_part: { role: "assistant", part: p, history_version: hv, generation_attempt: attempt, seq },
  };
}

const fold = (events: ChatStreamEvent[], from: ChatState = initialChatState(CHAT)) => events.reduce(applyEvent, from);

describe("applyEvent", () => {
  it("keeps messages in id order, replaces by newer revision, ignores older and repeated ones", () => {
    const s = fold([
      message(2, "assistant", 3, "answer", "2026-01-01T00:00:02.000Z"),
      message(1, "user", 2, "question", "2026-01-01T00:00:01.000Z"),
      message(2, "assistant", 4, "answer v2", "2026-01-01T00:00:02.000Z"),
      message(2, "assistant", 3, "answer", "2026-01-01T00:00:02.000Z"),
    ]);
    expect(s.messages.map((m) => [m.id, m.revision])).toEqual([
      [1, 2],
      [2, 4],
    ]);
    expect(s.historyVersion).toBe(4);
  });

  it("orders by id, which is insertion order, even where rows of one transaction share created_at", () => {
    const at = "2026-01-01T00:00:05.000Z";
    const s = fold([
      message(12, "assistant", 5, "result", at),
      message(10, "user", 5, "prompt", at),
      message(11, "assistant", 5, "call", at),
    ]);
    expect(s.messages.map((m) => m.id)).toEqual([10, 11, 12]);
  });

  it("builds the preview in order, drops repeated parts, restarts on a new episode, ends when the step commits", () => {
    const s = fold([
      part(1, { type: "reasoning", text: "think " }),
      part(2, { type: "text", text: "Hel" }),
      part(3, { type: "text", text: "lo" }),
      part(3, { type: "text", text: "lo" }),
      part(4, { type: "tool-call", tool_call_id: "t", tool_name: "ask", args_delta: '{"q":' }),
      part(5, { type: "tool-call", tool_call_id: "t", tool_name: "ask", args_delta: '"x"}' }),
    ]);
    expect(s.preview).toMatchObject({ text: "Hello", reasoning: "think ", lastSeq: 5 });
    expect(s.preview?.blocks).toEqual([
      { kind: "reasoning", text: "think " },
      { kind: "text", text: "Hello" },
      { kind: "tool-call", toolCallId: "t", toolName: "ask", argsText: '{"q":"x"}', args: undefined, complete: false },
    ]);
    const called = fold([part(6, { type: "tool-call", tool_call_id: "t", tool_name: "ask", args: { q: "x" } })], s);
    expect(called.preview?.blocks.at(-1)).toEqual({
      kind: "tool-call",
      toolCallId: "t",
      toolName: "ask",
      argsText: '{"q":"x"}',
      args: { q: "x" },
      complete: true,
    });
    expect(called.preview?.blocks).toHaveLength(3);
    const retried = fold([part(1, { type: "text", text: "again" }, 2, 2)], s);
    expect(retried.preview).toMatchObject({ generationAttempt: 2, text: "again", lastSeq: 1 });
    const committed = fold([message(3, "assistant", 3, "again", "2026-01-01T00:00:03.000Z")], retried);
    expect(committed.preview).toBeNull();
  });

  it("completes a provider-executed call with its tool-result, and skips a part type it does not know", () => {
    const s = fold([
      part(1, {
        type: "tool-call",
        tool_call_id: "w",
        tool_name: "web_search",
        args: { query: "q" },
        provider_executed: true,
        provider: "openai",
      }),
      part(2, { type: "future-part", text: "?" } as unknown as StreamPart),
      part(3, {
        type: "tool-result",
        tool_call_id: "w",
        tool_name: "web_search",
        result: [{ url: "https://a" }],
        is_error: false,
        provider_executed: true,
        provider: "openai",
      }),
      part(4, { type: "source", url: "https://a" }),
    ]);
    expect(s.preview?.lastSeq).toBe(4);
    expect(s.preview?.blocks).toEqual([
      {
        kind: "provider-tool",
        toolCallId: "w",
        toolName: "web_search",
        args: { query: "q" },
        result: [{ url: "https://a" }],
        isError: false,
        complete: true,
      },
      { kind: "source", url: "https://a" },
    ]);
  });

  it("clears what a status no longer allows, and keeps the newest title", () => {
    let s = fold([
      { type: "status", chat_id: CHAT, status: { status: "running" } },
      { type: "retry", chat_id: CHAT, retry: { attempt: 1, delay_ms: 1000, retrying_at: "2026-01-01T00:00:05.000Z" } },
      { type: "status", chat_id: CHAT, status: { status: "requires_action" } },
      { type: "action_required", chat_id: CHAT, action_required: { tool_calls: [{ tool_call_id: "t", tool_name: "ask", args: "{}" }] } },
    ]);
    expect(s.retry).toBeNull();
    expect(s.actionRequired).toHaveLength(1);
    const retrying = fold([
      { type: "status", chat_id: CHAT, status: { status: "running" } },
      { type: "retry", chat_id: CHAT, retry: { attempt: 1, delay_ms: 1000, retrying_at: "2026-01-01T00:00:05.000Z" } },
    ]);
    expect(retrying.retry).not.toBeNull();
    expect(fold([part(1, { type: "text", text: "ok" }, 2, 2)], retrying).retry).toBeNull();
    s = fold([{ type: "status", chat_id: CHAT, status: { status: "waiting" } }], s);
    expect(s.actionRequired).toBeNull();
  });

  it("leaves the chat's error alone on the event that says why the server closes the stream", () => {
    const failed = fold([
      { type: "status", chat_id: CHAT, status: { status: "error" } },
      {
        type: "error",
        chat_id: CHAT,
        error: { message: "boom", detail: null, kind: "generic", reason: "server", provider: null, retryable: false, status_code: null },
      },
    ]);
    const closing = streamClosingEvent(CHAT, "internal", "reconnect to resume");
    expect(isStreamClosingEvent(closing)).toBe(true);
    expect(fold([closing], failed)).toBe(failed);
    expect(fold([closing]).error).toBeNull();
    expect(isStreamClosingEvent(failed.error ? { type: "error", chat_id: CHAT, error: failed.error } : closing)).toBe(false);
  });

  it("resumes from what it holds: the episode's last part, never further", () => {
    const s = fold([
      message(1, "user", 2, "q", "2026-01-01T00:00:01.000Z"),
      { type: "status", chat_id: CHAT, status: { status: "running" } },
      part(1, { type: "text", text: "x" }),
      part(2, { type: "text", text: "y" }),
    ]);
    expect(resumeCursors(s)).toEqual({
      history_version: 2,
      queue_version: 0,
      retry_state_version: 0,
      generation_attempt: 1,
      last_part_seq: 2,
      status: "running",
      error_history_version: 0,
      action_required_history_version: 0,
    });
    const reset = fold([{ type: "history_reset", chat_id: CHAT }], s);
    expect(resumeCursors(reset)).toMatchObject({ last_part_seq: 0, generation_attempt: 0 });
    expect(reset.messages).toEqual([]);
  });
});
