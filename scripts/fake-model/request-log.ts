// What each model request carried, kept so tests can check what the provider was sent:
//   - `GET /_requests?contains=<text>` lists the recorded requests whose last user text contains
//     <text> (newest last), so a test finds its own requests by a nonce in its prompt.
//   - The `/files` directive answers with the file parts the request carried (files-reply below).
// File parts are read from each format's real wire shapes: Chat Completions `image_url` / `file`,
// Responses `input_image` / `input_file`, Anthropic `image` / `document`.

import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isRecord, offeredTools, stringField } from "./wire";

export interface ReceivedFile {
  /** The wire part type, e.g. `input_image`, `file`, `document`. */
  part: string;
  mediaType: string;
  bytes: number;
  /** First 16 hex digits of the bytes' SHA-256: enough to tell files apart in a test. */
  sha256: string;
}

export interface RequestRecord {
  seq: number;
  endpoint: string;
  model: string;
  /** Headers a provider client adds for attribution. */
  headers: Record<string, string>;
  /**
   * First 16 hex digits of the SHA-256 of the API key sent (`Authorization: Bearer <key>`, or
   * Anthropic's `x-api-key`), so a test can tell which key arrived without the log holding it; null: none.
   */
  credentialSha256: string | null;
  /** The body without the conversation and tools: effort, user, metadata, limits... */
  params: Record<string, unknown>;
  /** Text of the last user message (every text part). */
  lastUserText: string;
  /** Text of every user message, in order. */
  userTexts: string[];
  /** Every file part in the request, in order. */
  files: ReceivedFile[];
  /** The names of the tools the request offered, in order. */
  toolNames: string[];
  /**
   * The system prompt's text: Anthropic's `system`, Responses' `instructions`, and every system or
   * developer message (Chat Completions, Responses input), joined with blank lines.
   */
  system: string;
  /** The request body's size in bytes, as JSON. */
  bodyBytes: number;
  /** The provider's own tools offered (web search), as sent but for descriptions: `{type, name?, ...settings}`. */
  providerTools: Record<string, unknown>[];
  /**
   * Provider tool history sent back, in order: Responses `item_reference` / `web_search_call` items,
   * Anthropic `server_tool_use` / `web_search_tool_result` blocks.
   */
  replayedProviderTools: string[];
}

/** Tool entries that are not the client's functions: Responses `web_search`, Anthropic `web_search_*`. */
function providerToolsOf(tools: unknown): Record<string, unknown>[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter(isRecord).filter((tool) => (stringField(tool, "type") ?? "").startsWith("web_search"));
}

const REPLAYED_TYPES = new Set(["item_reference", "web_search_call", "server_tool_use", "web_search_tool_result"]);

function replayedProviderTools(messages: Record<string, unknown>[]): string[] {
  return messages
    .flatMap((m) => [m, ...partsOf(m)])
    .flatMap((item) => (REPLAYED_TYPES.has(stringField(item, "type") ?? "") ? [String(item.type)] : []));
}

/** Headers worth keeping (never the API key). */
const KEPT_HEADERS = ["cf-aig-metadata", "anthropic-beta"];
const CONVERSATION_FIELDS = new Set(["messages", "input", "tools", "system"]);
/** A test run makes a few thousand requests at most; older ones are dropped first. */
const MAX_RECORDS = 2000;

function dataUri(uri: unknown): { mediaType: string; data: Buffer } | undefined {
  if (typeof uri !== "string") return undefined;
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(uri);
  if (!match) return undefined;
  return { mediaType: match[1]!, data: Buffer.from(match[2]!, "base64") };
}

function received(part: string, mediaType: string, data: Buffer): ReceivedFile {
  return { part, mediaType, bytes: data.length, sha256: createHash("sha256").update(data).digest("hex").slice(0, 16) };
}

/** One content part of any format to a received file, when it is one. */
function fileOf(part: Record<string, unknown>): ReceivedFile | undefined {
  const type = stringField(part, "type") ?? "";
  switch (type) {
    case "image_url": {
      const uri = dataUri(isRecord(part.image_url) ? part.image_url.url : undefined);
      return uri && received(type, uri.mediaType, uri.data);
    }
    case "file": {
      const uri = dataUri(isRecord(part.file) ? part.file.file_data : undefined);
      return uri && received(type, uri.mediaType, uri.data);
    }
    case "input_image": {
      const uri = dataUri(part.image_url);
      return uri && received(type, uri.mediaType, uri.data);
    }
    case "input_file": {
      const uri = dataUri(part.file_data);
      return uri && received(type, uri.mediaType, uri.data);
    }
    case "image":
    case "document": {
      const source = isRecord(part.source) ? part.source : {};
      const mediaType = stringField(source, "media_type") ?? "";
      const data = stringField(source, "data") ?? "";
      return received(type, mediaType, stringField(source, "type") === "base64" ? Buffer.from(data, "base64") : Buffer.from(data, "utf8"));
    }
    default:
      return undefined;
  }
}

function conversation(body: Record<string, unknown>): Record<string, unknown>[] {
  const items = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [];
  return items.filter(isRecord);
}

function partsOf(message: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

function textOf(message: Record<string, unknown>): string {
  if (typeof message.content === "string") return message.content;
  return partsOf(message)
    .map((p) => (["text", "input_text"].includes(stringField(p, "type") ?? "") ? (stringField(p, "text") ?? "") : ""))
    .join("");
}

function credentialDigest(headers: IncomingHttpHeaders): string | null {
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
  const key = bearer ?? headers["x-api-key"];
  return typeof key === "string" ? createHash("sha256").update(key).digest("hex").slice(0, 16) : null;
}

export function inspectRequest(seq: number, endpoint: string, body: unknown, headers: IncomingHttpHeaders): RequestRecord {
  const record = isRecord(body) ? body : {};
  const messages = conversation(record);
  const users = messages.filter((m) => m.role === "user");
  const lastUser = users.at(-1);
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (typeof value === "string") kept[name] = value;
  }
  return {
    seq,
    endpoint,
    model: stringField(record, "model") ?? "",
    headers: kept,
    credentialSha256: credentialDigest(headers),
    params: Object.fromEntries(Object.entries(record).filter(([key]) => !CONVERSATION_FIELDS.has(key))),
    lastUserText: lastUser ? textOf(lastUser) : "",
    userTexts: users.map(textOf),
    files: messages.flatMap((m) => partsOf(m).flatMap((p) => fileOf(p) ?? [])),
    toolNames: offeredTools(record.tools).map((t) => t.name),
    system: systemText(record, messages),
    bodyBytes: Buffer.byteLength(JSON.stringify(body ?? null)),
    providerTools: providerToolsOf(record.tools),
    replayedProviderTools: replayedProviderTools(messages),
  };
}

function systemText(body: Record<string, unknown>, messages: Record<string, unknown>[]): string {
  const texts: string[] = [];
  if (typeof body.system === "string") texts.push(body.system);
  else if (Array.isArray(body.system))
    texts.push(
      body.system
        .filter(isRecord)
        .map((b) => stringField(b, "text") ?? "")
        .join(""),
    );
  if (typeof body.instructions === "string") texts.push(body.instructions);
  for (const m of messages) if (m.role === "system" || m.role === "developer") texts.push(textOf(m));
  return texts.filter((t) => t !== "").join("\n\n");
}

/** The reply to `/files`: one line per file part received, e.g. `input_image image/png 68 bytes sha256:…`. */
export function filesReplyText(files: readonly ReceivedFile[]): string {
  if (files.length === 0) return "files: none";
  return `files: ${files.map((f) => `${f.part} ${f.mediaType} ${f.bytes} bytes sha256:${f.sha256}`).join("; ")}`;
}

export class RequestLog {
  readonly #records: RequestRecord[] = [];
  #seq = 0;

  add(endpoint: string, body: unknown, headers: IncomingHttpHeaders): RequestRecord {
    this.#seq += 1;
    const record = inspectRequest(this.#seq, endpoint, body, headers);
    this.#records.push(record);
    if (this.#records.length > MAX_RECORDS) this.#records.shift();
    return record;
  }

  find(contains: string): RequestRecord[] {
    return this.#records.filter((r) => r.lastUserText.includes(contains));
  }
}
