import { describe, expect, it } from "vitest";
import { FALLBACK_TITLE_MAX_LENGTH } from "../../../src/chats/title";
import { TITLE_INPUT_MAX_CHARS, TITLE_SYSTEM_PROMPT, titleFromModelText, titlePrompt } from "../../../src/llm/title";

describe("titlePrompt", () => {
  it("sends the first prompt's text as the user message under the title instructions", () => {
    const prompt = titlePrompt([
      { type: "text", text: "Plan a trip" },
      { type: "file", file_id: "f", media_type: "image/png", name: "map.png" },
      { type: "text", text: "to Lisbon" },
    ]);
    expect(prompt).toEqual({ system: TITLE_SYSTEM_PROMPT, messages: [{ role: "user", content: "Plan a trip\nto Lisbon" }] });
  });

  it("is null for a prompt without text (files only): nothing to title", () => {
    expect(titlePrompt([{ type: "file", file_id: "f", media_type: "image/png", name: "a.png" }])).toBeNull();
    expect(titlePrompt([{ type: "text", text: "   " }])).toBeNull();
  });

  it("cuts a long prompt", () => {
    const prompt = titlePrompt([{ type: "text", text: "x".repeat(TITLE_INPUT_MAX_CHARS * 2) }]);
    expect(prompt?.messages[0]?.content).toHaveLength(TITLE_INPUT_MAX_CHARS);
  });
});

describe("titleFromModelText", () => {
  it.each([
    ["Trip to Lisbon", "Trip to Lisbon"],
    ['"Trip to Lisbon"', "Trip to Lisbon"],
    ["Title: Trip to Lisbon.", "Trip to Lisbon"],
    ["**Trip   to Lisbon**", "Trip to Lisbon"],
    ["# Trip to Lisbon", "Trip to Lisbon"],
    ["\n\n  Trip to Lisbon  \nsecond line", "Trip to Lisbon"],
    ["«Viaje a Lisboa»", "Viaje a Lisboa"],
  ])("%j -> %j", (text, title) => {
    expect(titleFromModelText(text)).toBe(title);
  });

  it("is null when nothing usable is left", () => {
    expect(titleFromModelText("")).toBeNull();
    expect(titleFromModelText("\n \n")).toBeNull();
    expect(titleFromModelText('""')).toBeNull();
  });

  it("cuts a long answer at a word, like a fallback title", () => {
    const title = titleFromModelText(`${"word ".repeat(40)}end`);
    expect(title).not.toBeNull();
    expect(title?.length).toBeLessThanOrEqual(FALLBACK_TITLE_MAX_LENGTH);
    expect(title?.endsWith("…")).toBe(true);
    expect(title).not.toMatch(/\s…$/);
  });
});
