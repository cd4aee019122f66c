// The summarizer's input, the committed rows and the summary cap (src/llm/compaction/).
import { describe, expect, it } from "vitest";
import { CHAT_SUMMARIZED_TOOL, compactionMessages, latestSummaryRecord, splitPendingUsers } from "../../../../src/llm/compaction/boundary";
import { SUMMARY_MAX_OUTPUT_TOKENS, summaryMaxOutputTokens } from "../../../../src/llm/compaction/summarize";
import { flattenForAnotherProvider, SUMMARY_INSTRUCTION, summaryInput } from "../../../../src/llm/compaction/summary-prompt";
import { buildPrompt } from "../../../../src/llm/prompt";
import { History } from "../history-rows";

const record = { source: "manual" as const, threshold_percent: 70, trigger_context_limit_tokens: 8000, context_limit_tokens: 8000 };

describe("pending user messages", () => {
  it("are the user rows after the last assistant row", () => {
    const h = new History();
    const u1 = h.user("q1");
    const a1 = h.assistant("a1");
    const u2 = h.user("q2");
    const hook = h.user("context", { modelOnly: true });
    expect(splitPendingUsers(h.rows)).toEqual({ summarized: [u1, a1], pendingUsers: [u2, hook] });
  });

  it("follow tool results too (a message sent after a client tool was answered or cancelled)", () => {
    const h = new History();
    h.user("q");
    h.calls({ id: "c1", name: "t" });
    h.result("c1", "t");
    const late = h.user("late");
    expect(splitPendingUsers(h.rows).pendingUsers).toEqual([late]);
  });

  it("are none mid-turn (the history ends with a tool result) or after an answer", () => {
    const h = new History();
    h.user("q");
    h.calls({ id: "c1", name: "t" });
    h.result("c1", "t");
    expect(splitPendingUsers(h.rows).pendingUsers).toEqual([]);
    const answered = new History();
    answered.user("q");
    answered.assistant("a");
    expect(splitPendingUsers(answered.rows).pendingUsers).toEqual([]);
  });
});

describe("the committed rows", () => {
  it("are the hidden anchor, the visible call and result with the record, then the verbatim replays", () => {
    const pending = [{ content: [{ type: "text" as const, text: "keep me" }] }];
    const rows = compactionMessages({
      toolCallId: "call",
      summary: "the gist",
      record,
      pendingUsers: pending,
      modelConfigId: "cfg",
      summarizer: { provider: "anthropic", model: "claude" },
    });
    expect(rows.map((r) => [r.role, r.modelOnly ?? false, r.compressed ?? false])).toEqual([
      ["user", true, true],
      ["assistant", false, true],
      ["tool", false, true],
      ["user", true, false],
    ]);
    expect(rows[1]!.content).toEqual([{ type: "tool-call", tool_call_id: "call", tool_name: CHAT_SUMMARIZED_TOOL, args: record }]);
    expect(rows[2]!.content[0]).toMatchObject({ type: "tool-result", result: { ...record, summary: "the gist", model: "claude" } });
    expect(rows[3]!.content).toEqual(pending[0]!.content);
  });

  it("leave a prompt that starts at the summary and keeps the replays", () => {
    const h = new History();
    h.user("old question");
    h.assistant("old answer");
    h.user("pending");
    h.addMessages(
      compactionMessages({
        toolCallId: "c",
        summary: "S",
        record,
        pendingUsers: [h.rows[2]!],
        modelConfigId: null,
        summarizer: { provider: "p", model: "m" },
      }),
    );
    const prompt = buildPrompt({ chat: { systemPrompt: null }, history: h.rows });
    const texts = prompt.messages.map((m) =>
      Array.isArray(m.content) ? m.content.map((p) => ("text" in p ? p.text : "")).join("") : m.content,
    );
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/S$/);
    expect(texts[1]).toBe("pending");
    expect(latestSummaryRecord(h.rows)).toEqual(record);
  });
});

describe("the summarizer's prompt", () => {
  it("is the chat's pruned prompt without the pending users, then the instruction", () => {
    const h = new History();
    h.user("before");
    h.assistant("earlier");
    h.compaction("old summary");
    h.user("q");
    h.assistant("a");
    h.user("pending");
    const { prompt, pendingUsers } = summaryInput({ systemPrompt: "be nice" }, h.rows, { reSanitize: false });
    expect(pendingUsers.map((r) => r.content)).toEqual([[{ type: "text", text: "pending" }]]);
    const texts = prompt.messages.map((m) => JSON.stringify(m.content));
    expect(texts.join()).toContain("old summary");
    expect(texts.join()).not.toContain("before");
    expect(texts.join()).not.toContain("pending");
    expect(texts.at(-1)).toContain(SUMMARY_INSTRUCTION);
    expect(prompt.system).toContain("be nice");
  });

  it("flattens tool history and files for another provider, leaving the chat's prompt as it was", () => {
    const h = new History();
    h.user("q");
    h.calls({ id: "c1", name: "lookup", args: { k: 1 } });
    h.result("c1", "lookup", { v: 2 });
    const chatPrompt = buildPrompt({ chat: { systemPrompt: null }, history: h.rows });
    const before = JSON.stringify(chatPrompt);
    const flat = flattenForAnotherProvider([
      ...chatPrompt.messages,
      { role: "user", content: [{ type: "file", data: "AAAA", mediaType: "application/pdf" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "hmm" },
          { type: "text", text: "t" },
        ],
      },
    ]);
    expect(JSON.stringify(chatPrompt)).toBe(before);
    expect(flat.map((m) => m.role)).toEqual(["user", "assistant", "user", "user", "assistant"]);
    expect(JSON.stringify(flat)).not.toContain("tool-call");
    expect(JSON.stringify(flat[1])).toContain('[tool call lookup (c1): {\\"k\\":1}]');
    expect(JSON.stringify(flat[2])).toContain('[tool result lookup (c1): {\\"v\\":2}]');
    expect(flat[3]).toEqual({ role: "user", content: [{ type: "text", text: "[file (application/pdf) omitted for the summarizer]" }] });
    expect(flat[4]).toEqual({ role: "assistant", content: [{ type: "text", text: "t" }] });
  });
});

describe("the summary's output cap", () => {
  it("is bounded by the summarizer's own window", () => {
    expect(summaryMaxOutputTokens(null)).toBe(SUMMARY_MAX_OUTPUT_TOKENS);
    expect(summaryMaxOutputTokens(2000)).toBe(400);
    expect(summaryMaxOutputTokens(1_000_000)).toBe(SUMMARY_MAX_OUTPUT_TOKENS);
    expect(summaryMaxOutputTokens(3)).toBe(1);
  });
});
