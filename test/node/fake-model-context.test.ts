// The fake model's prompt usage (one token per 4 characters of prompt text) and its context
// windows (`-ctx<N>` model ids): a prompt over the window gets each provider's real
// context-length-exceeded error, which the runner classifies as a context overflow.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, type LanguageModel } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextLimitOf, promptTokens } from "../../scripts/fake-model/context-window";
import { type FakeModelServer, startFakeModel } from "../../scripts/fake-model/server";
import { classifyModelError } from "../../src/llm/classify-error";

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModel({ port: 0, log: false });
});
afterAll(() => server.close());

const CASES: { name: string; model(url: string, id: string): LanguageModel }[] = [
  { name: "openai-chat", model: (url, id) => createOpenAI({ baseURL: `${url}/v1`, apiKey: "x" }).chat(id) },
  { name: "openai-responses", model: (url, id) => createOpenAI({ baseURL: `${url}/v1`, apiKey: "x" }).responses(id) },
  { name: "anthropic", model: (url, id) => createAnthropic({ baseURL: `${url}/v1`, apiKey: "x" })(id) },
];

describe("prompt size", () => {
  it("counts the text of every message, not structure", () => {
    const chat = {
      model: "fake",
      messages: [
        { role: "system", content: "abcd" },
        { role: "user", content: [{ type: "text", text: "abcdefgh" }] },
      ],
    };
    expect(promptTokens(chat)).toBe(3);
    expect(promptTokens({ model: "fake", input: "abcde" })).toBe(2);
    expect(promptTokens({ model: "fake", system: "abcd", messages: [{ role: "user", content: "abcd" }] })).toBe(2);
  });

  it("reads the window from the model id", () => {
    expect(contextLimitOf("fake-ctx2000", null)).toBe(2000);
    expect(contextLimitOf("fake-ctx32k", null)).toBe(32_000);
    expect(contextLimitOf("fake", null)).toBeNull();
    expect(contextLimitOf("fake", 500)).toBe(500);
  });
});

describe.each(CASES)("context window via $name", (c) => {
  it("reports the whole prompt's size as input tokens, non-streaming", async () => {
    const system = "s".repeat(40);
    const prompt = "p".repeat(80);
    const result = await generateText({ model: c.model(server.url, "fake"), system, prompt, maxRetries: 0 });
    expect(result.usage.inputTokens).toBe(30);
  });

  it("answers the provider's context-length error when the prompt exceeds the window", async () => {
    const fits = await generateText({ model: c.model(server.url, "fake-ctx25"), prompt: "x".repeat(100), maxRetries: 0 });
    expect(fits.usage.inputTokens).toBe(25);
    const error = await generateText({ model: c.model(server.url, "fake-ctx25"), prompt: "x".repeat(101), maxRetries: 0 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).not.toBeNull();
    const classified = classifyModelError(error, c.name);
    // Anthropic says it only in prose (invalid_request_error "prompt is too long"), which the
    // classifier never reads; OpenAI has a code for it.
    expect(classified.kind).toBe(c.name === "anthropic" ? "bad_request" : "context_overflow");
    expect(classified.retryable).toBe(false);
    expect(classified.statusCode).toBe(400);
  });
});
