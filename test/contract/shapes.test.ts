/**
 * The recordings themselves (coder-shapes.ts): they accept Coder's example frames and refuse each
 * known breakage, naming its field. A schema that accepted anything would let the session pass.
 */
import { describe, expect, it } from "vitest";
import { describeIssues } from "./coder-client";
import { breakages, exampleChat, streamFrames, watchFrames } from "./coder-frames";
import { Chat, ChatStreamFrame, ChatWatchEvent } from "./coder-shapes";

const SCHEMA = { stream: ChatStreamFrame, watch: ChatWatchEvent, chat: Chat } as const;

describe("Coder's recorded shapes", () => {
  it("accept every example /stream frame", () => {
    for (const frame of streamFrames) {
      const parsed = ChatStreamFrame.safeParse(frame);
      expect(parsed.success ? [] : describeIssues(parsed.error, frame)).toEqual([]);
    }
  });

  it("accept every example /chats/watch frame", () => {
    for (const frame of watchFrames) {
      const parsed = ChatWatchEvent.safeParse(frame);
      expect(parsed.success ? [] : describeIssues(parsed.error, frame)).toEqual([]);
    }
  });

  it("accept a chat with a child chat, and an optional field sent as null", () => {
    const child = {
      ...exampleChat,
      id: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
      parent_chat_id: exampleChat.id,
      root_chat_id: exampleChat.id,
    };
    expect(Chat.safeParse({ ...exampleChat, children: [child], last_error: null, plan_mode: "plan" }).success).toBe(true);
  });

  it.each(breakages)("refuse $name, naming the field", ({ socket, frame, field }) => {
    const parsed = SCHEMA[socket].safeParse(frame);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const lines = describeIssues(parsed.error, frame);
    expect(
      lines.some((l) => l.startsWith(`${field}:`)),
      lines.join("\n"),
    ).toBe(true);
  });
});
