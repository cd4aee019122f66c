import { describe, expect, it } from "vitest";
import { CLEAR_SENTINEL_TEXT, clearBoundaryMessages } from "../../../src/chats/transitions/clear-context";
import { buildPrompt, toolOutput } from "../../../src/llm/prompt";
import { History } from "./history-rows";

const chat = { systemPrompt: null };

describe("buildPrompt", () => {
  it("turns system rows into the system prompt and the rest into messages, in id order", () => {
    const h = new History();
    h.system("Be terse.");
    h.user("hi");
    h.assistant("hello");
    h.user("bye");

    const shuffled = [h.rows[2]!, h.rows[0]!, h.rows[3]!, h.rows[1]!];
    expect(buildPrompt({ chat, history: shuffled })).toEqual({
      system: "Be terse.",
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "hello" }] },
        { role: "user", content: [{ type: "text", text: "bye" }] },
      ],
    });
  });

  it("falls back to the chat's system prompt only when history has no system row", () => {
    const h = new History();
    h.user("hi");
    expect(buildPrompt({ chat: { systemPrompt: "From the chat." }, history: h.rows }).system).toBe("From the chat.");
    expect(buildPrompt({ chat, history: h.rows })).not.toHaveProperty("system");

    h.system("From history.");
    expect(buildPrompt({ chat: { systemPrompt: "From the chat." }, history: h.rows }).system).toBe("From history.");
  });

  it("appends the offered tools' guidance blocks after the chat's own system prompt", () => {
    const h = new History();
    h.user("hi");
    expect(buildPrompt({ chat: { systemPrompt: "Own." }, history: h.rows, toolGuidance: ["Memory.", "Agents."] }).system).toBe(
      "Own.\n\nMemory.\n\nAgents.",
    );
    expect(buildPrompt({ chat, history: h.rows, toolGuidance: ["Memory."] }).system).toBe("Memory.");
    expect(buildPrompt({ chat, history: h.rows, toolGuidance: [] })).not.toHaveProperty("system");
  });

  it("leaves deleted rows out", () => {
    const h = new History();
    h.user("first");
    h.assistant("old answer", { deleted: true });
    h.user("edited away", { deleted: true });
    h.user("second");
    expect(buildPrompt({ chat, history: h.rows }).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "first" }] },
      { role: "user", content: [{ type: "text", text: "second" }] },
    ]);
  });

  it("includes model-only rows", () => {
    const h = new History();
    h.user("question");
    h.user("hook context", { modelOnly: true });
    expect(buildPrompt({ chat, history: h.rows }).messages.map((m) => m.content)).toEqual([
      [{ type: "text", text: "question" }],
      [{ type: "text", text: "hook context" }],
    ]);
  });

  it("starts at the newest compaction anchor, keeps system rows, and drops the boundary decorations", () => {
    const h = new History();
    h.system("System.");
    h.user("ancient");
    h.assistant("ancient answer");
    h.compaction("first summary");
    h.user("old");
    h.assistant("old answer");
    h.compaction("second summary");
    h.user("pending question", { modelOnly: true }); // replayed after the triplet
    h.user("new question");

    expect(buildPrompt({ chat, history: h.rows })).toEqual({
      system: "System.",
      messages: [
        { role: "user", content: [{ type: "text", text: "second summary" }] },
        { role: "user", content: [{ type: "text", text: "pending question" }] },
        { role: "user", content: [{ type: "text", text: "new question" }] },
      ],
    });
  });

  it("starts at the clear sentinel of a ClearContext triplet", () => {
    const h = new History();
    h.user("before the clear");
    h.assistant("answer");
    h.addMessages(clearBoundaryMessages({ toolCallId: "clr", clearedAt: new Date(0), createdBy: null, modelConfigId: null }));
    h.user("after the clear");

    expect(buildPrompt({ chat, history: h.rows }).messages).toEqual([
      { role: "user", content: [{ type: "text", text: CLEAR_SENTINEL_TEXT }] },
      { role: "user", content: [{ type: "text", text: "after the clear" }] },
    ]);
  });

  it("ignores a deleted boundary", () => {
    const h = new History();
    h.user("kept");
    h.add("user", [{ type: "text", text: "summary" }], { modelOnly: true, compressed: true, deleted: true });
    h.user("also kept");
    expect(buildPrompt({ chat, history: h.rows }).messages).toHaveLength(2);
  });

  it("pairs tool calls with their results and merges consecutive tool rows into one tool message", () => {
    const h = new History();
    h.user("go");
    h.add("assistant", [
      { type: "reasoning", text: "two lookups" },
      { type: "text", text: "Looking." },
      { type: "tool-call", tool_call_id: "a", tool_name: "search", args: { q: 1 } },
      { type: "tool-call", tool_call_id: "b", tool_name: "read", args: { path: "x" } },
    ]);
    h.result("a", "search", { hits: 3 });
    h.result("b", "read", "file text");

    expect(buildPrompt({ chat, history: h.rows }).messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "two lookups" },
          { type: "text", text: "Looking." },
          { type: "tool-call", toolCallId: "a", toolName: "search", input: { q: 1 } },
          { type: "tool-call", toolCallId: "b", toolName: "read", input: { path: "x" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "search", output: { type: "json", value: { hits: 3 } } },
          { type: "tool-result", toolCallId: "b", toolName: "read", output: { type: "text", value: "file text" } },
        ],
      },
    ]);
  });

  it("drops a tool result whose call is not in the prompt", () => {
    const h = new History();
    h.calls({ id: "before", name: "search" });
    h.compaction("summary");
    h.result("before", "search");
    h.user("next");
    const messages = buildPrompt({ chat, history: h.rows }).messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "user"]);
  });

  it("keeps tool errors flagged as errors", () => {
    expect(toolOutput("boom", true)).toEqual({ type: "error-text", value: "boom" });
    expect(toolOutput({ error: "tool call cancelled: x" }, true)).toEqual({
      type: "error-json",
      value: { error: "tool call cancelled: x" },
    });
    expect(toolOutput(undefined, false)).toEqual({ type: "json", value: null });
    expect(toolOutput(["a"], false)).toEqual({ type: "json", value: ["a"] });
  });

  it("names files in text, says an evicted upload expired, and drops evicted assistant and tool files", () => {
    const h = new History();
    h.add("user", [
      { type: "text", text: "look" },
      { type: "file", file_id: "f1", media_type: "image/png", name: "a.png" },
      { type: "file", file_id: "gone", media_type: "application/pdf", name: "b.pdf" },
    ]);
    h.add("assistant", [
      { type: "file", file_id: "gone2", media_type: "image/png", name: "chart.png" },
      { type: "file", file_id: "f3", media_type: "text/plain", name: "notes.txt" },
      { type: "tool-call", tool_call_id: "t", tool_name: "render", args: {} },
    ]);
    h.add("tool", [
      { type: "tool-result", tool_call_id: "t", tool_name: "render", result: "done", is_error: false },
      { type: "file", file_id: "f4", media_type: "image/png", name: "render.png" },
    ]);

    const { messages } = buildPrompt({ chat, history: h.rows, evictedFileIds: new Set(["gone", "gone2"]) });
    expect(messages[0]?.content).toEqual([
      { type: "text", text: "look" },
      { type: "text", text: "[file: a.png (image/png)]" },
      { type: "text", text: "[file: b.pdf (application/pdf): the content has expired]" },
    ]);
    expect(messages[1]?.content).toEqual([
      { type: "text", text: "[file: notes.txt (text/plain)]" },
      { type: "tool-call", toolCallId: "t", toolName: "render", input: {} },
    ]);
    expect(messages[2]?.content).toEqual([
      { type: "tool-result", toolCallId: "t", toolName: "render", output: { type: "text", value: "done" } },
    ]);
  });

  it("gives the model a file reference as text: the path, the lines, the content in a fence it cannot close", () => {
    const h = new History();
    h.add("user", [
      { type: "file-reference", file_name: "src/main.go", start_line: 10, end_line: 12, content: "func broken() {}" },
      { type: "file-reference", file_name: "README.md", start_line: 3, end_line: 3, content: "```sh\nmake\n```" },
      { type: "text", text: "why?" },
    ]);
    const { messages } = buildPrompt({ chat, history: h.rows });
    expect(messages[0]?.content).toEqual([
      { type: "text", text: "[file reference: src/main.go, lines 10-12]\n```\nfunc broken() {}\n```" },
      { type: "text", text: "[file reference: README.md, line 3]\n````\n```sh\nmake\n```\n````" },
      { type: "text", text: "why?" },
    ]);
  });

  it("sends the bytes it is given as file parts, an evicted id as expired even with bytes, the rest as text", () => {
    const h = new History();
    h.add("user", [
      { type: "file", file_id: "img", media_type: "image/png", name: "a.png" },
      { type: "file", file_id: "doc", media_type: "application/pdf", name: "b.pdf" },
      { type: "file", file_id: "zip", media_type: "application/zip", name: "c.zip" },
      { type: "file", file_id: "gone", media_type: "image/png", name: "d.png" },
    ]);
    const png = new Uint8Array([1, 2, 3]);
    const pdf = new Uint8Array([4, 5]);
    const fileContents = new Map([
      ["img", { data: png, mediaType: "image/png" }],
      ["doc", { data: pdf, mediaType: "application/pdf" }],
      ["gone", { data: png, mediaType: "image/png" }],
    ]);
    const { messages } = buildPrompt({ chat, history: h.rows, fileContents, evictedFileIds: new Set(["gone"]) });
    expect(messages[0]?.content).toEqual([
      { type: "file", data: png, mediaType: "image/png", filename: "a.png" },
      { type: "file", data: pdf, mediaType: "application/pdf", filename: "b.pdf" },
      { type: "text", text: "[file: c.zip (application/zip)]" },
      { type: "text", text: "[file: d.png (image/png): the content has expired]" },
    ]);
  });

  it("skips empty text and reasoning, and messages left with no content", () => {
    const h = new History();
    h.user("q");
    h.add("assistant", [
      { type: "reasoning", text: "" },
      { type: "text", text: "" },
    ]);
    h.add("assistant", [
      { type: "reasoning", text: "" },
      { type: "text", text: "a" },
    ]);
    expect(buildPrompt({ chat, history: h.rows }).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      { role: "assistant", content: [{ type: "text", text: "a" }] },
    ]);
  });
});
