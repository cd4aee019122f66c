import { describe, expect, it } from "vitest";
import { parseScript, SUMMARY_REQUEST_HEADING as FAKE_HEADING } from "../../../scripts/fake-model/script";
import {
  LAST_TURN_MARKER,
  STATUS_LABEL_MAX_CHARS,
  SUMMARY_INPUT_MAX_CHARS,
  SUMMARY_MAX_CHARS,
  SUMMARY_REQUEST_HEADING,
  SUMMARY_SYSTEM_PROMPT,
  summaryFromModelText,
  summaryPrompt,
} from "../../../src/llm/summary";
import { History } from "./history-rows";

const text = (t: string) => [{ type: "text" as const, text: t }];
const userMessage = (prompt: NonNullable<ReturnType<typeof summaryPrompt>>) => prompt.messages[0]?.content as string;

describe("summaryPrompt", () => {
  it("sends a one-line-per-message transcript with the last turn marked, under the summary instructions", () => {
    const h = new History();
    h.add("system", text("be brief"));
    h.add("user", text("Plan a trip\nto Lisbon"));
    h.add("assistant", [{ type: "reasoning", text: "thinking" }, ...text("Day one: Alfama.")]);
    h.add("user", [...text("Add Sintra"), { type: "file", file_id: "f", media_type: "image/png", name: "map.png" }]);
    h.add("assistant", [{ type: "tool-call", tool_call_id: "c1", tool_name: "search", args: { q: "Sintra" } }]);
    h.add("tool", [{ type: "tool-result", tool_call_id: "c1", tool_name: "search", result: { hits: 3 }, is_error: false }]);
    h.add("user", text("hook context"), { modelOnly: true });
    h.add("assistant", text("Day two: Sintra."));
    h.add("user", text("an edit removed this"), { deleted: true });
    const prompt = summaryPrompt(h.rows);
    expect(prompt?.system).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(prompt?.messages).toHaveLength(1);
    expect(prompt && userMessage(prompt)).toBe(
      [
        SUMMARY_REQUEST_HEADING,
        "",
        "User: Plan a trip to Lisbon",
        "Assistant: Day one: Alfama.",
        LAST_TURN_MARKER,
        "User: Add Sintra [file map.png]",
        "Assistant: [called search]",
        'Tool: [search returned: {"hits":3}]',
        "Assistant: Day two: Sintra.",
      ].join("\n"),
    );
  });

  it("is null without a user prompt", () => {
    const h = new History();
    h.add("system", text("be brief"));
    expect(summaryPrompt(h.rows)).toBeNull();
  });

  it("stays under its bound however long the chat, keeping the first prompt and the newest rows", () => {
    const h = new History();
    h.add("user", text("the very first prompt"));
    for (let i = 0; i < 200; i++) {
      h.add("assistant", text(`answer ${i} ${"x".repeat(400)}`));
      h.add("user", text(`follow-up ${i}`));
    }
    h.add("assistant", text("the last answer"));
    const prompt = summaryPrompt(h.rows);
    const message = prompt ? userMessage(prompt) : "";
    expect(message.length).toBeLessThanOrEqual(SUMMARY_REQUEST_HEADING.length + 2 + SUMMARY_INPUT_MAX_CHARS);
    const lines = message.split("\n");
    expect(lines[2]).toBe("User: the very first prompt");
    expect(lines[3]).toMatch(/^\[\d+ earlier messages left out\]$/);
    expect(lines.slice(-3)).toEqual([LAST_TURN_MARKER, "User: follow-up 199", "Assistant: the last answer"]);
  });
});

describe("summaryFromModelText", () => {
  it("reads the two labelled lines", () => {
    expect(summaryFromModelText("Summary: A trip to Lisbon, two days planned.\nStatus: Added a day in Sintra.")).toEqual({
      summary: "A trip to Lisbon, two days planned.",
      lastTurnSummary: "Added a day in Sintra",
    });
  });

  it("tolerates markdown, case, quotes, other labels and text around them", () => {
    expect(summaryFromModelText('Sure!\n\n**Summary:** "Trip planning"\n- **STATUS**: Planned day two\nDone.')).toEqual({
      summary: "Trip planning",
      lastTurnSummary: "Planned day two",
    });
    expect(summaryFromModelText("summary: s\nlast turn: did it")).toEqual({ summary: "s", lastTurnSummary: "did it" });
  });

  it("is null when either line is missing or empty", () => {
    expect(summaryFromModelText("A trip to Lisbon")).toBeNull();
    expect(summaryFromModelText("Summary: a trip")).toBeNull();
    expect(summaryFromModelText("Summary:\nStatus: did")).toBeNull();
  });

  it("cuts what it stores", () => {
    const long = summaryFromModelText(`Summary: ${"word ".repeat(400)}\nStatus: ${"step ".repeat(100)}`);
    expect(long?.summary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(long?.lastTurnSummary.length).toBeLessThanOrEqual(STATUS_LABEL_MAX_CHARS);
  });
});

describe("the fake model's answer to a summary request", () => {
  it("recognizes the service's request (the two headings agree)", () => {
    expect(FAKE_HEADING).toBe(SUMMARY_REQUEST_HEADING);
  });

  it("answers the two lines from the transcript, which the service reads back", () => {
    const h = new History();
    h.add("user", text("Plan a trip"));
    h.add("assistant", text("ok"));
    h.add("user", text("Add Sintra"));
    h.add("assistant", text("done"));
    const prompt = summaryPrompt(h.rows);
    const script = parseScript({ kind: "user", text: prompt ? userMessage(prompt) : "" });
    expect(script.kind).toBe("text");
    const answer = script.kind === "text" ? script.tokens.join("") : "";
    expect(summaryFromModelText(answer)).toEqual({ summary: "The user asked: Plan a trip", lastTurnSummary: "Replied to: Add Sintra" });
  });

  it("fails the call as the title call fails when the last turn's prompt is /nonstream-error", () => {
    const h = new History();
    h.add("user", text("/nonstream-error 503 hi"));
    h.add("assistant", text("hi"));
    const prompt = summaryPrompt(h.rows);
    expect(parseScript({ kind: "user", text: prompt ? userMessage(prompt) : "" })).toMatchObject({ kind: "nonstream_error", status: 503 });
  });
});
