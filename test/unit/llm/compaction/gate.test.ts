// The automatic compaction gate and the "still over limit" rule (src/llm/compaction/gate.ts).
import { describe, expect, it } from "vitest";
import { compactionMessages, type SummaryRecord } from "../../../../src/llm/compaction/boundary";
import { automaticCompactionGate, latestPromptTokens, stillOverLimitMessage } from "../../../../src/llm/compaction/gate";
import { compactionTriggers } from "../../../../src/llm/compaction/trigger";
import { History } from "../history-rows";

const chatOnly = (threshold: number) =>
  compactionTriggers({ chatModel: { contextLimit: 1000, compressionThreshold: threshold }, ownerThresholdPercent: null, override: null });

function step(h: History, inputTokens: number | null): void {
  const row = h.assistant("a");
  row.usage = { input_tokens: inputTokens, output_tokens: 1, total_tokens: null, reasoning_tokens: null, cached_input_tokens: null };
}

function summary(h: History, record: Partial<SummaryRecord>): void {
  h.addMessages(
    compactionMessages({
      toolCallId: `s${h.rows.length}`,
      summary: "sum",
      record: { source: "automatic", threshold_percent: 50, trigger_context_limit_tokens: 1000, context_limit_tokens: 1000, ...record },
      pendingUsers: [],
      modelConfigId: null,
      summarizer: { provider: "openai", model: "m" },
    }),
  );
}

describe("the previous step's prompt size", () => {
  it("is the input tokens of the newest assistant step after the newest boundary", () => {
    const h = new History();
    h.user("u");
    step(h, 100);
    h.user("u2");
    step(h, 300);
    expect(latestPromptTokens(h.rows)).toBe(300);
    summary(h, {});
    expect(latestPromptTokens(h.rows)).toBeNull();
    h.user("u3", { modelOnly: true });
    step(h, 40);
    expect(latestPromptTokens(h.rows)).toBe(40);
  });
});

describe("the gate", () => {
  it("compacts when the prompt reached the binding point, not below, not without usage", () => {
    const h = new History();
    h.user("u");
    expect(automaticCompactionGate(h.rows, chatOnly(50)).kind).toBe("none");
    step(h, 499);
    expect(automaticCompactionGate(h.rows, chatOnly(50)).kind).toBe("none");
    h.user("u2");
    step(h, 500);
    expect(automaticCompactionGate(h.rows, chatOnly(50))).toMatchObject({ kind: "compact", promptTokens: 500 });
  });

  it("does nothing when the chat trigger is disabled", () => {
    const h = new History();
    step(h, 999);
    expect(automaticCompactionGate(h.rows, chatOnly(100)).kind).toBe("none");
  });

  it("is 'still over limit' when the first step after the summary already reached the same trigger", () => {
    const h = new History();
    step(h, 600);
    summary(h, { threshold_percent: 50, trigger_context_limit_tokens: 1000 });
    step(h, 550);
    step(h, 560);
    expect(automaticCompactionGate(h.rows, chatOnly(50))).toMatchObject({ kind: "still_over_limit", promptTokens: 550 });
  });

  it("compacts again when the first step after the summary was under the trigger", () => {
    const h = new History();
    summary(h, {});
    step(h, 200);
    step(h, 700);
    expect(automaticCompactionGate(h.rows, chatOnly(50)).kind).toBe("compact");
  });

  it("compacts again when the summary was recorded under another threshold or limit", () => {
    const h = new History();
    summary(h, { threshold_percent: 60 });
    step(h, 700);
    expect(automaticCompactionGate(h.rows, chatOnly(50)).kind).toBe("compact");
    const other = new History();
    summary(other, { trigger_context_limit_tokens: 2000 });
    step(other, 700);
    expect(automaticCompactionGate(other.rows, chatOnly(50)).kind).toBe("compact");
  });

  it("never reports 'still over limit' at a 0% threshold", () => {
    const h = new History();
    summary(h, { threshold_percent: 0 });
    step(h, 10);
    expect(automaticCompactionGate(h.rows, chatOnly(0)).kind).toBe("compact");
  });

  it("does not look past a clear boundary for a summary", () => {
    const h = new History();
    summary(h, {});
    h.compaction("cleared"); // a boundary whose tool is not chat_summarized: no summary record
    h.rows.at(-1)!.content = [{ type: "tool-result", tool_call_id: "c", tool_name: "chat_cleared", result: {}, is_error: false }];
    h.rows.at(-2)!.content = [{ type: "tool-call", tool_call_id: "c", tool_name: "chat_cleared", args: {} }];
    step(h, 900);
    expect(automaticCompactionGate(h.rows, chatOnly(50)).kind).toBe("compact");
  });
});

describe("the 'still over limit' message names what can clear it", () => {
  it("the owner's threshold when the chat trigger binds", () => {
    const message = stillOverLimitMessage(600, chatOnly(50));
    expect(message).toMatch(/raise your compaction threshold/);
    expect(message).not.toMatch(/organization admin/);
  });

  it("a larger override window when the organization trigger binds", () => {
    const t = compactionTriggers({
      chatModel: { contextLimit: 10_000, compressionThreshold: 90 },
      ownerThresholdPercent: null,
      override: { contextLimit: 1000 },
    });
    const message = stillOverLimitMessage(850, t);
    expect(message).toMatch(/organization admin to choose a compaction model with a larger context window/);
    expect(message).not.toMatch(/raise your compaction threshold/);
  });

  it("both when the usage also reaches the other enabled trigger", () => {
    const t = compactionTriggers({
      chatModel: { contextLimit: 10_000, compressionThreshold: 9 },
      ownerThresholdPercent: null,
      override: { contextLimit: 1000 },
    });
    expect(t.binding?.kind).toBe("organization"); // 800 < 900
    const message = stillOverLimitMessage(950, t);
    expect(message).toMatch(/raise your compaction threshold/);
    expect(message).toMatch(/larger context window/);
  });
});
