/**
 * Stored provider-executed parts (provider-tool-call, provider-tool-result) back into a prompt. Pure.
 *
 * A call and its result go back in the provider's own shape only when the wire can take them: the
 * call's family is the prompt's (OpenAI Responses, Anthropic Messages), the same tool is offered
 * in this call, both halves are in the message, and the result has what that wire needs (Anthropic
 * sends each search result's `encryptedContent` back; OpenAI replays a search by its item id, or
 * rebuilds the item from the result when responses are not stored). Anything else becomes plain
 * text that keeps what was searched and found, as compaction flattens tool history for another
 * provider: a chat whose config changed model, provider or setting still runs.
 */
import type { AssistantModelMessage, JSONValue } from "ai";
import type { ChatMessagePart } from "../db/schema/chats";
import { visibleProviderResult } from "../wire/message-part";
import type { ProviderTools } from "./provider-tools";

/** Source parts kept per message: a response citing more pages than this lists the first ones. */
export const MAX_SOURCES_PER_MESSAGE = 50;
/** A flattened result keeps this much of its text. */
const MAX_FLATTENED_RESULT_CHARS = 4_000;

type AssistantContentPart = Exclude<AssistantModelMessage["content"], string>[number];
type ProviderCallPart = Extract<ChatMessagePart, { type: "provider-tool-call" }>;
type ProviderResultPart = Extract<ChatMessagePart, { type: "provider-tool-result" }>;

/** What a prompt's call offers: the family of its wire and the provider tools it offers. */
export type ProviderToolReplay = Pick<ProviderTools, "family" | "names">;

/** The ids of the calls in `content` that go back in their provider's own shape for `replay`. */
export function replayableProviderCalls(content: readonly ChatMessagePart[], replay: ProviderToolReplay | undefined): Set<string> {
  const ids = new Set<string>();
  if (!replay?.family) return ids;
  const results = new Map<string, ProviderResultPart>();
  for (const part of content) if (part.type === "provider-tool-result") results.set(part.tool_call_id, part);
  for (const part of content) {
    if (part.type !== "provider-tool-call" || part.provider !== replay.family || !replay.names.has(part.tool_name)) continue;
    const result = results.get(part.tool_call_id);
    if (result && result.provider === part.provider && replayResultValue(result) !== undefined && callFits(part))
      ids.add(part.tool_call_id);
  }
  return ids;
}

/** A stored provider part as prompt content: native when `replayable` has its call, else text. */
export function providerPartContent(part: ProviderCallPart | ProviderResultPart, replayable: ReadonlySet<string>): AssistantContentPart[] {
  const native = replayable.has(part.tool_call_id);
  if (part.type === "provider-tool-call") {
    if (native)
      return [{ type: "tool-call", toolCallId: part.tool_call_id, toolName: part.tool_name, input: part.args, providerExecuted: true }];
    return [{ type: "text", text: `[${part.tool_name} call: ${json(part.args)}]` }];
  }
  const value = native ? replayResultValue(part) : undefined;
  if (value !== undefined) {
    return [
      {
        type: "tool-result",
        toolCallId: part.tool_call_id,
        toolName: part.tool_name,
        output: part.is_error ? { type: "error-json", value } : { type: "json", value },
      },
    ];
  }
  return [{ type: "text", text: `[${part.tool_name} ${part.is_error ? "failed" : "result"}: ${flattenedResult(part.result)}]` }];
}

/** Anthropic's server_tool_use takes an object input; its web search, a query. */
function callFits(part: ProviderCallPart): boolean {
  if (part.provider !== "anthropic") return true;
  const args = part.args as { query?: unknown } | null;
  return typeof args === "object" && args !== null && typeof args.query === "string";
}

/**
 * The result as the provider's AI SDK converts it back, or undefined when that wire cannot take it.
 * Anthropic: each search result needs its url and encrypted content; a missing title or page age
 * is written as null (the SDK's stream leaves an absent title out, its prompt schema wants null).
 * OpenAI: a failed search is not replayed (its call never completed); a result has its action.
 */
function replayResultValue(part: ProviderResultPart): JSONValue | undefined {
  const { result } = part;
  if (part.provider === "anthropic") {
    if (part.is_error) return isRecord(result) ? (result as JSONValue) : undefined;
    if (!Array.isArray(result)) return undefined;
    const items: JSONValue[] = [];
    for (const item of result) {
      if (!isRecord(item) || typeof item.url !== "string" || typeof item.encryptedContent !== "string") return undefined;
      items.push({
        url: item.url,
        title: typeof item.title === "string" ? item.title : null,
        pageAge: typeof item.pageAge === "string" ? item.pageAge : null,
        encryptedContent: item.encryptedContent,
        type: "web_search_result",
      });
    }
    return items;
  }
  // Without an action the SDK cannot rebuild the item when responses are not stored.
  if (part.provider === "openai") return !part.is_error && isRecord(result) && isRecord(result.action) ? (result as JSONValue) : undefined;
  return undefined;
}

/** Search results as `title <url>` lines; anything else as JSON, without opaque content, capped. */
function flattenedResult(result: unknown): string {
  const visible = visibleProviderResult(result);
  const pages = Array.isArray(visible) ? visible : isRecord(visible) && Array.isArray(visible.sources) ? visible.sources : undefined;
  const lines = pages?.flatMap((page) =>
    isRecord(page) && typeof page.url === "string"
      ? [typeof page.title === "string" ? `${page.title} <${page.url}>` : `<${page.url}>`]
      : [],
  );
  const action = isRecord(visible) && isRecord(visible.action) ? json(visible.action) : undefined;
  const text = lines && lines.length > 0 ? [...(action ? [action] : []), ...lines].join("; ") : json(visible);
  return text.length > MAX_FLATTENED_RESULT_CHARS ? `${text.slice(0, MAX_FLATTENED_RESULT_CHARS)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}
