/**
 * What the model reads from an MCP tool result. Text content is joined into one string; other
 * content (images, audio, resources) is named, not inlined, so a tool cannot flood the history
 * with bytes; structured content rides along as it is, and output past the deployment's limit is
 * cut. An `isError` result becomes an error tool result through McpToolError, like a call that failed.
 */

export interface McpContentItem {
  type: string;
  text?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string };
}

export interface McpCallResult {
  content?: McpContentItem[];
  structuredContent?: unknown;
  isError?: boolean;
}

export class McpToolError extends Error {
  override name = "McpToolError";
}

function describe(item: McpContentItem): string {
  switch (item.type) {
    case "text":
      return item.text ?? "";
    case "image":
    case "audio":
      return `[${item.type} ${item.mimeType ?? "unknown type"}]`;
    case "resource":
      return item.resource?.text ?? `[resource ${item.resource?.uri ?? ""}]`;
    case "resource_link":
      return `[resource link ${item.uri ?? ""}${item.name ? ` (${item.name})` : ""}]`;
    default:
      return `[${item.type}]`;
  }
}

export function resultText(result: McpCallResult): string {
  return (result.content ?? []).map(describe).join("\n");
}

/**
 * The tool result the model sees; throws McpToolError for an `isError` result. Output past
 * `maxBytes` (text and structured content together, UTF-8) is cut to its first `maxBytes` bytes of
 * text with a marker saying so; structured content does not ride along then, since half an object
 * is no object. What is returned here is what the history stores and later steps resend.
 */
export function toolResultFor(result: McpCallResult, maxBytes: number): unknown {
  const text = resultText(result);
  if (result.isError) throw new McpToolError(bounded(text || "the MCP tool reported an error", 0, maxBytes));
  const structured = result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent);
  const extra = utf8.encode(structured).byteLength;
  if (utf8.encode(text).byteLength + extra <= maxBytes) {
    return result.structuredContent === undefined ? { content: text } : { content: text, structured_content: result.structuredContent };
  }
  // Nothing but structured content: its JSON is the text to show.
  return { content: text === "" ? bounded(structured, 0, maxBytes) : bounded(text, extra, maxBytes) };
}

const utf8 = new TextEncoder();

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes (never inside a character) and the marker, when it
 * and `extraBytes` of output left out are over the limit; else `text` as it is.
 */
export function bounded(text: string, extraBytes: number, maxBytes: number): string {
  const bytes = utf8.encode(text);
  const total = bytes.byteLength + extraBytes;
  if (total <= maxBytes) return text;
  let end = Math.min(maxBytes, bytes.byteLength);
  // Back up over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && end < bytes.byteLength && (bytes[end]! & 0xc0) === 0x80) end--;
  const shown = new TextDecoder().decode(bytes.subarray(0, end));
  return `${shown}\n[output truncated: ${total} bytes, showing the first ${end}]`;
}
