/**
 * The model prompt for a chat: its history (promptRows: active, pruned at the newest boundary)
 * converted to AI SDK model messages. Pure.
 */
import type { AssistantModelMessage, JSONValue, ModelMessage, ToolResultPart, UserModelMessage } from "ai";
import type { ChatMessagePart, ChatRow } from "../db/schema/chats";
import { type HistoryRow, promptRows } from "./active-history";
import { type ProviderToolReplay, providerPartContent, replayableProviderCalls } from "./provider-tool-parts";

export interface PromptInput {
  chat: Pick<ChatRow, "systemPrompt">;
  /** The chat's rows in any order, deleted and model-only ones included. */
  history: readonly HistoryRow[];
  /**
   * Files that no longer exist for this chat: evicted by the attachment cap, missing from storage,
   * or not linked to this chat at all. User uploads become the expired placeholder; assistant and
   * tool files are dropped.
   */
  evictedFileIds?: ReadonlySet<string>;
  /** Static blocks of the tool families offered this step (src/tools), after the chat's own system prompt. */
  toolGuidance?: readonly string[];
  /** Bytes of user uploads to send as file content, by file id; any other file is a placeholder. */
  fileContents?: ReadonlyMap<string, FileContent>;
  /**
   * The wire and provider tools of the call this prompt is for: stored provider-executed parts of
   * that family and tool go back natively, any other as text (provider-tool-parts.ts). Unset: all text.
   */
  providerTools?: ProviderToolReplay;
}

export interface FileContent {
  data: Uint8Array;
  mediaType: string;
}

export interface ModelPrompt {
  system?: string;
  messages: ModelMessage[];
}

type FilePart = Extract<ChatMessagePart, { type: "file" }>;
type UserContentPart = Exclude<UserModelMessage["content"], string>[number];
type AssistantContentPart = Exclude<AssistantModelMessage["content"], string>[number];

export function buildPrompt(input: PromptInput): ModelPrompt {
  const evicted = input.evictedFileIds ?? new Set<string>();
  const contents = input.fileContents ?? new Map<string, FileContent>();
  const rows = promptRows(input.history);
  const systemTexts: string[] = [];
  const messages: ModelMessage[] = [];
  /** Calls made by assistant messages already in the prompt: a result without one is dropped. */
  const calls = new Set<string>();

  for (const row of rows) {
    switch (row.role) {
      case "system": {
        const text = textOf(row.content);
        if (text) systemTexts.push(text);
        break;
      }
      case "user": {
        const content = row.content.flatMap((part) => userPart(part, evicted, contents));
        if (content.length > 0) messages.push({ role: "user", content });
        break;
      }
      case "assistant": {
        const replayable = replayableProviderCalls(row.content, input.providerTools);
        const content = row.content.flatMap((part) => assistantPart(part, evicted, replayable));
        for (const part of content) if (part.type === "tool-call") calls.add(part.toolCallId);
        if (content.length > 0) messages.push({ role: "assistant", content });
        break;
      }
      case "tool": {
        const results = row.content.flatMap((part) => toolResult(part, calls));
        if (results.length === 0) break;
        // Consecutive tool rows answer one response: one tool message, as the SDK itself builds it.
        const previous = messages.at(-1);
        if (previous?.role === "tool") previous.content.push(...results);
        else messages.push({ role: "tool", content: results });
        break;
      }
    }
  }

  const own = systemTexts.length > 0 ? systemTexts.join("\n\n") : input.chat.systemPrompt || undefined;
  const blocks = [own, ...(input.toolGuidance ?? [])].filter((text): text is string => !!text);
  return blocks.length === 0 ? { messages } : { system: blocks.join("\n\n"), messages };
}

function textOf(content: readonly ChatMessagePart[]): string {
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

/** A file whose bytes are not sent is named in the text. */
export function filePlaceholder(file: Pick<FilePart, "name" | "media_type">, expired = false): string {
  return expired ? `[file: ${file.name} (${file.media_type}): the content has expired]` : `[file: ${file.name} (${file.media_type})]`;
}

/**
 * Lines of a file the user points at, as the model reads them: where they are, then the lines in
 * a code fence longer than any run of backticks inside them, so the content cannot close it.
 */
export function fileReferenceText(part: Extract<ChatMessagePart, { type: "file-reference" }>): string {
  const lines = part.start_line === part.end_line ? `line ${part.start_line}` : `lines ${part.start_line}-${part.end_line}`;
  let longestRun = 2;
  for (const run of part.content.matchAll(/`{3,}/g)) longestRun = Math.max(longestRun, run[0].length);
  const fence = "`".repeat(longestRun + 1);
  return `[file reference: ${part.file_name}, ${lines}]\n${fence}\n${part.content}\n${fence}`;
}

function userPart(part: ChatMessagePart, evicted: ReadonlySet<string>, contents: ReadonlyMap<string, FileContent>): UserContentPart[] {
  switch (part.type) {
    case "text":
      return part.text ? [{ type: "text", text: part.text }] : [];
    case "file": {
      // "an evicted user upload is replaced with a short placeholder saying the content has expired"
      if (evicted.has(part.file_id)) return [{ type: "text", text: filePlaceholder(part, true) }];
      const content = contents.get(part.file_id);
      if (content === undefined) return [{ type: "text", text: filePlaceholder(part) }];
      return [{ type: "file", data: content.data, mediaType: content.mediaType, filename: part.name }];
    }
    case "file-reference":
      return [{ type: "text", text: fileReferenceText(part) }];
    default:
      return [];
  }
}

function assistantPart(part: ChatMessagePart, evicted: ReadonlySet<string>, replayable: ReadonlySet<string>): AssistantContentPart[] {
  switch (part.type) {
    case "text":
      return part.text ? [{ type: "text", text: part.text }] : [];
    case "reasoning":
      return part.text ? [{ type: "reasoning", text: part.text }] : [];
    case "tool-call":
      return [{ type: "tool-call", toolCallId: part.tool_call_id, toolName: part.tool_name, input: part.args ?? {} }];
    case "file":
      // "evicted assistant and tool files are dropped"
      return evicted.has(part.file_id) ? [] : [{ type: "text", text: filePlaceholder(part) }];
    case "provider-tool-call":
    case "provider-tool-result":
      return providerPartContent(part, replayable);
    default:
      // Source parts list what results and citations already hold.
      return [];
  }
}

function toolResult(part: ChatMessagePart, calls: ReadonlySet<string>): ToolResultPart[] {
  if (part.type !== "tool-result" || !calls.has(part.tool_call_id)) return [];
  return [{ type: "tool-result", toolCallId: part.tool_call_id, toolName: part.tool_name, output: toolOutput(part.result, part.is_error) }];
}

/** Strings go as text, anything else as JSON; errors keep their flag so the model sees the failure. */
export function toolOutput(result: unknown, isError: boolean): ToolResultPart["output"] {
  if (typeof result === "string") return isError ? { type: "error-text", value: result } : { type: "text", value: result };
  const value = (result ?? null) as JSONValue;
  return isError ? { type: "error-json", value } : { type: "json", value };
}
