/**
 * What the model reads from an MCP tool result. Text content is joined into one string; other
 * content (images, audio, resources) is named, not inlined, so a tool cannot flood the history
 * with bytes; structured content rides along as it is. An `isError` result becomes an error tool
 * result through McpToolError, like a call that failed.
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

/** The tool result the model sees; throws McpToolError for an `isError` result. */
export function toolResultFor(result: McpCallResult): unknown {
  const text = resultText(result);
  if (result.isError) throw new McpToolError(text || "the MCP tool reported an error");
  return result.structuredContent === undefined ? { content: text } : { content: text, structured_content: result.structuredContent };
}
