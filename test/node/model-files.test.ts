// What the model receives, checked at the fake model over HTTP through the real AI SDK providers:
// file parts in each transport's own wire shape (the fake model's `/files` reply and request log),
// the attribution header and end-user field, and the transport a model id selects.
import { createHash } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import type { ModelConfigRow } from "../../src/model-configs/configs";
import type { ProviderRow, ProviderType } from "../../src/model-configs/providers";
import type { ChatMessagePart } from "../../src/db/schema/chats";
import { attributionRequest } from "../../src/llm/attribution";
import { acceptsFileMediaType } from "../../src/llm/file-media-types";
import { buildPrompt, type FileContent } from "../../src/llm/prompt";
import { modelClientFor } from "../../src/llm/provider";
import { providerOptionsFor } from "../../src/llm/provider-options";
import { runModelStep } from "../../src/llm/step";
import type { ModelTransport } from "../../src/llm/transport";
import { fakeProvider, messageRow, modelConfigRow } from "./support/model-rows";

const fakeUrl = inject("fakeModelUrl");

interface Case {
  transport: ModelTransport;
  type: ProviderType;
  model: string;
  /** The wire part types the fake model should see for the image and the PDF. */
  wire: [string, string];
}

const CASES: Case[] = [
  { transport: "openai-responses", type: "openai", model: "gpt-5", wire: ["input_image", "input_file"] },
  { transport: "openai-chat", type: "openai", model: "gpt-4o", wire: ["image_url", "file"] },
  { transport: "anthropic-messages", type: "anthropic", model: "claude-sonnet-4-6", wire: ["image", "document"] },
  { transport: "openai-compatible-chat", type: "openai-compatible", model: "fake", wire: ["image_url", "file"] },
];

// A 1x1 PNG and a minimal PDF.
const PNG = Uint8Array.from(
  Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"),
);
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex").slice(0, 16);

function provider(c: Case): ProviderRow {
  return fakeProvider({ id: "p", type: c.type });
}

function config(c: Case): ModelConfigRow {
  return modelConfigRow({ id: "p" }, { id: "c", organizationId: "o", model: c.model });
}

const userRow = (content: ChatMessagePart[]) => messageRow("user", content);

interface Recorded {
  endpoint: string;
  headers: Record<string, string>;
  params: Record<string, unknown>;
  files: { part: string; mediaType: string; bytes: number; sha256: string }[];
}

async function recorded(nonce: string): Promise<Recorded[]> {
  const res = await fetch(`${fakeUrl}/_requests?contains=${encodeURIComponent(nonce)}`);
  return ((await res.json()) as { requests: Recorded[] }).requests;
}

const ENDPOINT: Record<ModelTransport, string> = {
  "openai-responses": "responses",
  "openai-chat": "chat_completions",
  "anthropic-messages": "messages",
  "openai-compatible-chat": "chat_completions",
};

describe.each(CASES)("files and attribution on $transport", (c) => {
  it("sends an image and a PDF as file parts, an unaccepted type and an evicted upload as text", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const content: ChatMessagePart[] = [
      { type: "text", text: `/files ${nonce}` },
      { type: "file", file_id: "img", media_type: "image/png", name: "dot.png" },
      { type: "file", file_id: "doc", media_type: "application/pdf", name: "doc.pdf" },
      { type: "file", file_id: "zip", media_type: "application/zip", name: "a.zip" },
      { type: "file", file_id: "old", media_type: "image/png", name: "old.png" },
    ];
    const fileContents = new Map<string, FileContent>([
      ["img", { data: PNG, mediaType: "image/png" }],
      ["doc", { data: PDF, mediaType: "application/pdf" }],
    ]);
    const client = modelClientFor(provider(c), config(c), { headers: attributionRequest("key-1", "chat-1").headers });
    expect(client.transport).toBe(c.transport);
    const outcome = await runModelStep({
      model: client.model,
      prompt: buildPrompt({ chat: { systemPrompt: null }, history: [userRow(content)], fileContents, evictedFileIds: new Set(["old"]) }),
      abortSignal: new AbortController().signal,
      providerOptions: providerOptionsFor(client.transport, config(c), null, { user: "key-1" }),
      onPart: () => {},
    });
    expect(outcome.kind).toBe("response");
    const reply = outcome.assistant.map((p) => (p.type === "text" ? p.text : "")).join("");
    expect(reply).toBe(
      `files: ${c.wire[0]} image/png ${PNG.length} bytes sha256:${sha(PNG)}; ${c.wire[1]} application/pdf ${PDF.length} bytes sha256:${sha(PDF)}`,
    );

    const [request] = await recorded(nonce);
    expect(request?.endpoint).toBe(ENDPOINT[c.transport]);
    expect(JSON.parse(request?.headers["cf-aig-metadata"] ?? "{}")).toEqual({ chatd_key_id: "key-1", chat_id: "chat-1" });
    if (c.transport === "anthropic-messages") expect(request?.params.metadata).toEqual({ user_id: "key-1" });
    else expect(request?.params.user).toBe("key-1");
  });

  it("sends a text file as content where the transport takes one", async () => {
    const nonce = crypto.randomUUID().slice(0, 8);
    const text = new TextEncoder().encode(`notes ${nonce}`);
    const accepted = acceptsFileMediaType(c.transport, "text/plain");
    const client = modelClientFor(provider(c), config(c));
    const outcome = await runModelStep({
      model: client.model,
      prompt: buildPrompt({
        chat: { systemPrompt: null },
        history: [
          userRow([
            { type: "text", text: `/files ${nonce}` },
            { type: "file", file_id: "t", media_type: "text/plain", name: "notes.txt" },
          ]),
        ],
        fileContents: accepted ? new Map([["t", { data: text, mediaType: "text/plain" }]]) : new Map(),
      }),
      abortSignal: new AbortController().signal,
      onPart: () => {},
    });
    expect(outcome.kind).toBe("response");
    const [request] = await recorded(nonce);
    // Anthropic takes it as a text document; OpenAI-compatible inlines it as a text part.
    if (c.transport === "anthropic-messages")
      expect(request?.files).toEqual([{ part: "document", mediaType: "text/plain", bytes: text.length, sha256: sha(text) }]);
    else expect(request?.files).toEqual([]);
    expect(accepted).toBe(c.transport === "anthropic-messages" || c.transport === "openai-compatible-chat");
  });
});
