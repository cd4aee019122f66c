/**
 * A committed message's parts as clients read them: Coder's `ChatMessagePart` (docs/api.md
 * "ChatMessagePart"). History stores most parts in that shape already; the two it stores in its
 * own shape are the provider-run tool's call and result (`provider-tool-call`,
 * `provider-tool-result`), which leave as Coder's `tool-call` / `tool-result` marked
 * `provider_executed: true`, the way the stream sends them while they are generated.
 *
 * Rows keep their own tags: the prompt builder tells a provider's call (replayed in the
 * provider's shape, never answered by a client) from one of ours without reading a flag, and no
 * migration rewrites stored history. Messages are serialized on every read and stream sync, so
 * the mapping is one pass that hands back the stored array itself when nothing needs changing.
 */
import type { ChatMessagePart } from "../db/schema/chats";

type StoredProviderCall = Extract<ChatMessagePart, { type: "provider-tool-call" }>;
type StoredProviderResult = Extract<ChatMessagePart, { type: "provider-tool-result" }>;

/**
 * A tool the provider ran itself, as Coder marks one. `provider` (the provider family whose wire
 * can replay it) is ours; Coder's clients ignore it.
 */
export interface WireProviderToolCall {
  type: "tool-call";
  tool_call_id: string;
  tool_name: string;
  args: unknown;
  provider_executed: true;
  provider: string;
}

/** Its result, without the opaque replay data only the provider can read (see visibleProviderResult). */
export interface WireProviderToolResult {
  type: "tool-result";
  tool_call_id: string;
  tool_name: string;
  result: unknown;
  is_error: boolean;
  provider_executed: true;
  provider: string;
}

/** Every stored part but the provider ones goes out as stored. */
export type ChatMessagePartWire =
  | Exclude<ChatMessagePart, StoredProviderCall | StoredProviderResult>
  | WireProviderToolCall
  | WireProviderToolResult;

const isProviderPart = (part: ChatMessagePart): part is StoredProviderCall | StoredProviderResult =>
  part.type === "provider-tool-call" || part.type === "provider-tool-result";

/** A stored message's content in Coder's shapes: the same array when it holds no provider part. */
export function partsToWire(content: readonly ChatMessagePart[]): ChatMessagePartWire[] {
  let out: ChatMessagePartWire[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const part = content[i]!;
    if (isProviderPart(part)) {
      out ??= content.slice(0, i) as ChatMessagePartWire[];
      out.push(providerPartToWire(part));
    } else if (out) out.push(part);
  }
  return out ?? (content as ChatMessagePartWire[]);
}

/** One provider-run tool part in Coder's shape: what is committed and what is streamed. */
export function providerPartToWire(part: StoredProviderCall): WireProviderToolCall;
export function providerPartToWire(part: StoredProviderResult): WireProviderToolResult;
export function providerPartToWire(part: StoredProviderCall | StoredProviderResult): WireProviderToolCall | WireProviderToolResult;
export function providerPartToWire(part: StoredProviderCall | StoredProviderResult): WireProviderToolCall | WireProviderToolResult {
  if (part.type === "provider-tool-call") {
    return {
      type: "tool-call",
      tool_call_id: part.tool_call_id,
      tool_name: part.tool_name,
      args: part.args,
      provider_executed: true,
      provider: part.provider,
    };
  }
  return {
    type: "tool-result",
    tool_call_id: part.tool_call_id,
    tool_name: part.tool_name,
    result: visibleProviderResult(part.result),
    is_error: part.is_error,
    provider_executed: true,
    provider: part.provider,
  };
}

/**
 * A provider result without each item's opaque `encryptedContent` (Anthropic's search results):
 * only the provider can read it, the next prompt sends the stored copy back, and a client would
 * only carry kilobytes it cannot use. Items without it are passed through as they are.
 */
export function visibleProviderResult(result: unknown): unknown {
  if (!Array.isArray(result) || !result.some(hasEncryptedContent)) return result;
  return result.map((item) => {
    if (!hasEncryptedContent(item)) return item;
    const { encryptedContent: _, ...rest } = item;
    return rest;
  });
}

function hasEncryptedContent(item: unknown): item is Record<string, unknown> & { encryptedContent: unknown } {
  return typeof item === "object" && item !== null && "encryptedContent" in item;
}
