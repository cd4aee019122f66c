// The contract between the server and the per-provider wire formats.
// A format reads its provider's request body into a neutral ModelRequest and
// encodes a neutral Reply back into its provider's JSON or SSE shapes.

import type { Frame } from "./frame";
import type { LastTurn, OfferedTool, StreamEnding } from "./script";

export interface ModelRequest {
  model: string;
  stream: boolean;
  /** OpenAI Chat only sends usage on streams when asked (`stream_options.include_usage`). */
  includeUsage: boolean;
  maxTokens: number | undefined;
  turn: LastTurn;
  /** The tools the request declared, in order (empty when none). */
  tools: OfferedTool[];
  /** The provider's own web search tool, when the request offered it (web-search.ts). */
  webSearch?: WebSearchOffer;
  /** Responses: the response is stored (`store` not false), so its items can be referenced later. */
  storesItems?: boolean;
}

/** What a format may check a request against: the server's stored Responses items. */
export interface RequestContext {
  storedItems: { has(id: string): boolean };
}

/** What a request offered: the provider's web search tool, and (Responses) whether it wants the sources listed. */
export interface WebSearchOffer {
  includeSources: boolean;
}

export interface WebSearchResult {
  url: string;
  title: string;
  pageAge: string;
}

/** What a reply's search found (web-search.ts): `callNumber` makes its ids. */
export interface ReplyWebSearch {
  callNumber: number;
  query: string;
  results: WebSearchResult[];
  /** Responses: the request asked for `web_search_call.action.sources` in `include`. */
  includeSources: boolean;
}

/** Named as in OpenAI Chat Completions; the other formats map these to their own names. */
export type FinishReason = "stop" | "tool_calls" | "length";

export interface ReplyToolCall {
  callNumber: number;
  name: string;
  args: string;
  argChunks: string[];
}

/**
 * A text reply: its tokens, optionally after a reasoning block, optionally cut into several text
 * blocks (`blockStarts`, the indices of the tokens that open one). A tool-call reply holds one call
 * (`/tool`) or several made in parallel (`/parallel`).
 */
export type ReplyContent =
  | { type: "text"; tokens: string[]; reasoning?: string[]; blockStarts?: number[]; webSearch?: ReplyWebSearch }
  | { type: "tool_call"; calls: ReplyToolCall[] };

/** A text reply's tokens, one list per text block. */
export function textBlocks(content: Extract<ReplyContent, { type: "text" }>): string[][] {
  const starts = [0, ...(content.blockStarts ?? []), content.tokens.length];
  return starts.slice(0, -1).map((start, i) => content.tokens.slice(start, starts[i + 1]));
}

/** A fully resolved reply: the script after max-token truncation and id assignment. */
export interface Reply {
  /** Per-process response number; formats derive their ids from it. */
  responseNumber: number;
  model: string;
  createdAtSeconds: number;
  content: ReplyContent;
  finish: FinishReason;
  tokenDelayMs: number;
  /** Input counts the cached tokens, output the reasoning ones (absent: 0), as the AI SDK reports them. */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; reasoningTokens?: number };
  includeUsage: boolean;
  /**
   * Not "finish": the stream stops right after the last text token (the server then closes, resets,
   * or writes the format's `encodeStreamError`).
   */
  ending: StreamEnding;
}

export type { Frame };

export interface WireFormat {
  readRequest(body: unknown, context: RequestContext): ModelRequest;
  encodeStream(reply: Reply): Frame[];
  encodeJson(reply: Reply): unknown;
  encodeError(status: number, message: string): unknown;
  /** The provider's error event inside a 200 stream (a failure after the first tokens). */
  encodeStreamError(status: number, message: string): string;
}

/** `data:`-only SSE frame (OpenAI Chat Completions). */
export function dataFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** SSE frame with an `event:` line (Responses, Anthropic). */
export function eventFrame(event: string, payload: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * Inserts a pause before each token frame except the first, so a `/slow` reply
 * spends `(tokens - 1) * delay` between its first and last token.
 */
export function pacedTokenFrames(tokens: string[], delayMs: number, toFrame: (token: string) => string): Frame[] {
  const frames: Frame[] = [];
  tokens.forEach((token, i) => {
    if (i > 0 && delayMs > 0) frames.push({ pauseMs: delayMs });
    frames.push(toFrame(token));
  });
  return frames;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" ? value : undefined;
}

export function numberField(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * Text of a message content that is either a string or an array of parts;
 * only parts whose `type` is in `textTypes` contribute.
 */
export function contentText(content: unknown, textTypes: readonly string[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isRecord)
    .filter((part) => textTypes.includes(stringField(part, "type") ?? ""))
    .map((part) => stringField(part, "text") ?? "")
    .join("");
}

/**
 * The `tools` array of a request as name and description: OpenAI Chat nests them under
 * `function`, Responses and Anthropic do not. Entries without a name are skipped.
 */
export function offeredTools(tools: unknown): OfferedTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter(isRecord).flatMap((entry) => {
    const fn = isRecord(entry["function"]) ? entry["function"] : entry;
    const name = stringField(fn, "name");
    return name === undefined ? [] : [{ name, description: stringField(fn, "description") ?? "" }];
  });
}

/** Request body errors surface as HTTP 400 in the provider's error shape. */
export class BadRequestError extends Error {}
