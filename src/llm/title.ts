/**
 * Automatic chat titles: the prompt of the title call and how its answer becomes a title. Pure.
 * The call itself is a background call (background-call.ts) made after a chat's first turn
 * (runner/title-generation.ts).
 */
import type { ModelMessage } from "ai";
import type { ChatMessagePart } from "../db/schema/chats";
import { clipTitle } from "../chats/title";

export const TITLE_SYSTEM_PROMPT = [
  "You write the title of a conversation between a user and an AI assistant.",
  "Reply with the title alone: at most eight words, no quotes, no trailing punctuation, no preamble.",
  "Name the subject of the user's request; write it in the language the user wrote in.",
].join(" ");

/** The user's text the title is drawn from is cut here: a title needs the gist, not the whole prompt. */
export const TITLE_INPUT_MAX_CHARS = 4_000;
/** Room for a short title, and for the few reasoning tokens some models spend before it. */
export const TITLE_MAX_OUTPUT_TOKENS = 256;

/** The title call's messages: the first user prompt as the user message, under the title instructions. */
export function titlePrompt(firstPrompt: readonly ChatMessagePart[]): { system: string; messages: ModelMessage[] } | null {
  const text = firstPrompt
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n")
    .trim();
  if (text === "") return null;
  return { system: TITLE_SYSTEM_PROMPT, messages: [{ role: "user", content: text.slice(0, TITLE_INPUT_MAX_CHARS) }] };
}

/**
 * The model's answer as a title: its first non-empty line, without a "Title:" label, wrapping
 * quotes or markdown emphasis, on one line, cut at a word near the fallback title's limit.
 * Null when nothing usable is left (the chat keeps its title).
 */
export function titleFromModelText(text: string): string | null {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (line === undefined) return null;
  const title = line
    .replace(/^#+\s*/, "")
    .replace(/^title\s*:\s*/i, "")
    .replace(/^[*_`"'“”‘’«»]+|[*_`"'“”‘’«»]+$/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.。:;,]+$/, "")
    .trim();
  return title === "" ? null : clipTitle(title);
}
