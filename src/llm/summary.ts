/**
 * A chat's summary and its turn status label (`summary`, `last_turn_summary`): the prompt of the
 * one background call made after a turn, and how its answer becomes the two fields. Pure.
 *
 * The model sees a plain-text transcript, not the chat's prompt: tool calls and results shrink to a
 * line each, files to their names, reasoning is left out, and the whole is bounded
 * (SUMMARY_INPUT_MAX_CHARS), so the call stays cheap however long the chat is.
 */
import type { ModelMessage } from "ai";
import type { ChatMessagePart, ChatMessageRow } from "../db/schema/chats";
import { activeRows } from "./active-history";

/**
 * The first line of the call's user message. The fake model (scripts/fake-model/script.ts) answers
 * a message that starts with it as a model following the instructions would; keep the two equal.
 */
export const SUMMARY_REQUEST_HEADING = "Summarize this conversation for its chat list.";
/** Opens the last turn in the transcript: the rows from the last user prompt on. */
export const LAST_TURN_MARKER = "--- last turn ---";

export const SUMMARY_SYSTEM_PROMPT = [
  "You keep a chat list up to date. Read the conversation between a user and an AI assistant and reply with exactly two lines:",
  "Summary: what the conversation is about and where it stands, in one or two sentences.",
  "Status: what the assistant did in the last turn, in a few words starting with a verb in the past tense (for example: Fixed the failing test).",
  "Write in the language the user wrote in. No other text, no quotes, no markdown.",
].join("\n");

/** The transcript the model reads is cut to this many characters (the first prompt and the newest rows kept). */
export const SUMMARY_INPUT_MAX_CHARS = 12_000;
/** One message's text in the transcript is cut here. */
export const SUMMARY_MESSAGE_MAX_CHARS = 1_500;
/** Two short lines, and room for the few reasoning tokens some models spend first. */
export const SUMMARY_MAX_OUTPUT_TOKENS = 400;
/** What is stored, at most (longer answers are cut at a word). */
export const SUMMARY_MAX_CHARS = 500;
export const STATUS_LABEL_MAX_CHARS = 100;

type SummaryRow = Pick<ChatMessageRow, "id" | "role" | "content" | "deleted" | "modelOnly" | "compressed">;

export interface SummaryPrompt {
  system: string;
  messages: ModelMessage[];
}

/**
 * The call's messages for the chat's history as the turn left it, or null when there is nothing to
 * summarize (no user prompt, or nothing visible after it).
 */
export function summaryPrompt(history: readonly SummaryRow[]): SummaryPrompt | null {
  // What the user sees: model-only rows (compaction summaries, hook context) are not the conversation.
  const visible = activeRows(history).filter((row) => !row.modelOnly && row.role !== "system");
  const lastPrompt = visible.findLastIndex((row) => row.role === "user");
  if (lastPrompt < 0) return null;
  const lines = visible.map(transcriptLine);
  if (lines.every((line) => line === null)) return null;
  const transcript = boundedTranscript(lines, lastPrompt);
  return {
    system: SUMMARY_SYSTEM_PROMPT,
    messages: [{ role: "user", content: `${SUMMARY_REQUEST_HEADING}\n\n${transcript}` }],
  };
}

/** A row as one transcript line; null for a row with nothing to show. */
function transcriptLine(row: SummaryRow): string | null {
  const parts = row.content.map(partText).filter((text): text is string => text !== null);
  if (parts.length === 0) return null;
  const speaker = row.role === "user" ? "User" : row.role === "assistant" ? "Assistant" : "Tool";
  return `${speaker}: ${clip(oneLine(parts.join(" ")), SUMMARY_MESSAGE_MAX_CHARS)}`;
}

function partText(part: ChatMessagePart): string | null {
  switch (part.type) {
    case "text":
      return part.text.trim() === "" ? null : part.text;
    case "reasoning":
      return null;
    case "file":
      return `[file ${part.name}]`;
    case "file-reference":
      return `[${part.file_name}:${part.start_line}-${part.end_line}] ${part.content}`;
    case "tool-call":
      return `[called ${part.tool_name}]`;
    case "tool-result": {
      const result = typeof part.result === "string" ? part.result : JSON.stringify(part.result ?? null);
      return `[${part.tool_name} ${part.is_error ? "failed" : "returned"}: ${clip(oneLine(result), 300)}]`;
    }
    default:
      // A part kind this transcript does not know yet: left out.
      return null;
  }
}

/**
 * The lines joined under SUMMARY_INPUT_MAX_CHARS: the first line (the chat's subject), a marker for
 * what was left out, then the newest lines that fit, the last turn marked. The last turn's lines are
 * always kept (each is already cut to SUMMARY_MESSAGE_MAX_CHARS, so they fit unless a turn has
 * many tool rounds; then its oldest lines go first).
 */
function boundedTranscript(lines: readonly (string | null)[], lastPrompt: number): string {
  const indexed = lines.flatMap((line, index) => (line === null ? [] : [{ line, index }]));
  const first = indexed[0];
  if (!first) return "";
  const render = (entry: { line: string; index: number }) =>
    entry.index === lastPrompt ? `${LAST_TURN_MARKER}\n${entry.line}` : entry.line;
  let budget = SUMMARY_INPUT_MAX_CHARS - render(first).length;
  const tail: string[] = [];
  let omitted = 0;
  for (let i = indexed.length - 1; i >= 1; i--) {
    const entry = indexed[i];
    if (!entry) continue;
    const text = render(entry);
    if (text.length + 1 > budget) {
      omitted = i;
      break;
    }
    budget -= text.length + 1;
    tail.unshift(text);
  }
  const gap = omitted > 0 ? [`[${omitted} earlier message${omitted === 1 ? "" : "s"} left out]`] : [];
  return [render(first), ...gap, ...tail].join("\n");
}

export interface ChatSummary {
  summary: string;
  /** The turn status label. */
  lastTurnSummary: string;
}

/**
 * The model's answer as the two fields: the `Summary:` and `Status:` lines, labels matched without
 * regard to case or markdown emphasis. Null when either is missing or empty (the chat keeps what it
 * has, as the spec asks of background generation that fails).
 */
export function summaryFromModelText(text: string): ChatSummary | null {
  let summary: string | null = null;
  let status: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw
      .trim()
      .replace(/^[-*#>\s]+/, "")
      .replace(/\*\*/g, "");
    const match = /^(summary|status|last turn)\s*:\s*(.*)$/i.exec(line);
    if (!match) continue;
    const value = cleanValue(match[2] ?? "");
    if (value === "") continue;
    if (match[1]?.toLowerCase() === "summary") summary ??= clip(value, SUMMARY_MAX_CHARS);
    else status ??= clip(value.replace(/[.。]+$/, ""), STATUS_LABEL_MAX_CHARS);
  }
  return summary !== null && status !== null ? { summary, lastTurnSummary: status } : null;
}

function cleanValue(value: string): string {
  return oneLine(value)
    .replace(/^[*_`"'“”‘’«»]+|[*_`"'“”‘’«»]+$/g, "")
    .trim();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Cut at a word near `max`, with an ellipsis when cut. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space >= max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
