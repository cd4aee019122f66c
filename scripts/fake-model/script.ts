// Turns the last user message into a wire-format-neutral "script" for the reply.
// Everything here is pure and deterministic so the same prompt always yields the
// same reply, whatever the endpoint (but for the write times of `/stamp`, stamp-tokens.ts).

import { stampTokens } from "./stamp-tokens";

/**
 * What the client most recently said: a user text, or the result(s) of tool calls (with the text of
 * the last user message before them, which `/tool-loop` reads).
 */
export type LastTurn = { kind: "user"; text: string } | { kind: "tool_result"; text: string; userText: string };

/**
 * How a streamed text reply ends: normally, or right after its last token, either closed cleanly
 * with no finish (`/cut`), with the connection reset (`/reset`), or with the provider's in-stream
 * error event (`/midstream-error`).
 */
export type StreamEnding = "finish" | "cut" | "reset" | "error";

/**
 * `stamped`: each token's write time is filled in as it is written (`/stamp`, stamp-tokens.ts).
 * `gate`: a stream stops after its first token until the gate of that name is opened (`/gate`).
 * `reasoning`: tokens of a reasoning block sent before the text, unpaced (`/think`): a gate holds
 * after the first text token.
 * `blockStarts`: indices of the tokens that open a new text block (`/think a :: b :: c`); formats
 * without blocks (Chat Completions) send the text as one.
 */
export type TextScript = {
  kind: "text";
  tokens: string[];
  reasoning?: string[];
  blockStarts?: number[];
  tokenDelayMs: number;
  ending?: StreamEnding;
  stamped?: boolean;
  gate?: string;
  /** `/web-search`: the provider's web search runs first, with this query (web-search.ts). */
  webSearch?: { query: string };
};

/** What the request offered besides its named tools: the provider's own web search. */
export interface ScriptContext {
  webSearch?: boolean;
}

/** What `/web-search` answers when the request offers no web search tool. */
export const NO_WEB_SEARCH_PREFIX = "web search not offered: ";

/** A tool the request offered the model (name and description, as the client sent them). */
export interface OfferedTool {
  name: string;
  description: string;
}

/** A neutral description of the reply; encoders turn it into a wire format. */
export type Script =
  | TextScript
  | { kind: "tool_call"; name: string; args: string }
  | { kind: "tool_calls"; calls: { name: string; args: string }[] }
  /**
   * The first `failures` requests fail with `status`: as an HTTP error, or (`midStream`) inside a
   * 200 stream, after the first half of `afterwards`' tokens, as the provider's error event.
   */
  | { kind: "error"; status: number; message: string; failures: number | "always"; afterwards: TextScript; midStream?: boolean }
  | { kind: "hang" }
  /** Streaming requests get `streaming`; non-streaming ones (titles, summaries) answer HTTP `status`. */
  | { kind: "nonstream_error"; status: number; message: string; streaming: TextScript };

/** What a non-streaming request carrying `/stamp` gets (the service's titles and summaries): no stamps to measure. */
export const STAMP_NONSTREAM_TEXT = "Short title";
/** Reply text used when a directive leaves nothing to echo (an empty reply is not a useful test). */
export const EMPTY_ECHO_TEXT = "ok";
export const TOOL_RESULT_PREFIX = "tool result received: ";
/** Guards against `/long 1e9` tying up the process. */
export const MAX_LONG_TOKENS = 100_000;
export const MAX_SLOW_DELAY_MS = 60_000;
/** What `/gate` and `POST /_gates/<name>` accept as a gate's name. */
export const GATE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MIN_ERROR_STATUS = 400;
const MAX_ERROR_STATUS = 599;
const DEFAULT_TOOL_ARGS = "{}";

/**
 * Splits text into word tokens that keep their leading whitespace, so that
 * `tokens.join("") === text`: "hello world" → ["hello", " world"].
 */
export function tokenize(text: string): string[] {
  const tokens = text.match(/\s*\S+/g) ?? [];
  const consumed = tokens.join("").length;
  const trailing = text.slice(consumed);
  if (trailing.length > 0) {
    if (tokens.length === 0) return [trailing];
    tokens[tokens.length - 1] += trailing;
  }
  return tokens;
}

/** Deterministic "token" count used for usage numbers: whitespace-separated words. */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/** `/long n` output: "tok1", " tok2", … one token per chunk. */
export function longTokens(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? "tok1" : ` tok${i + 1}`));
}

function echo(text: string, tokenDelayMs = 0): TextScript {
  return { kind: "text", tokens: tokenize(text.length > 0 ? text : EMPTY_ECHO_TEXT), tokenDelayMs };
}

/** `/slow`'s arguments (`<ms> <text>`) as a paced echo; undefined when the delay is malformed. */
function slowEcho(args: string): TextScript | undefined {
  const { word, rest } = nextWord(args);
  const delay = parseNonNegativeInt(word);
  return delay === undefined || delay > MAX_SLOW_DELAY_MS ? undefined : echo(rest, delay);
}

/**
 * The text reply `text` scripts: itself a text directive (`/slow`, `/think`, `/gate`, …), or echoed.
 * What `/error` answers once its failures are used up, and what `/gate` holds.
 */
function textReply(text: string, context: ScriptContext = {}): TextScript {
  const script = parseScript({ kind: "user", text }, [], context);
  return script.kind === "text" ? script : echo(text);
}

/** What separates `/think`'s reasoning from its text blocks, and the blocks from each other. */
const BLOCK_SEPARATOR = "::";

/**
 * `/think <reasoning> :: <text> [:: <text> …]`: a reasoning block, then one text block per segment.
 * Without a separator the whole text is the reasoning and the answer is `ok`.
 */
function thinkScript(args: string): TextScript {
  const [reasoning = "", ...blocks] = args.split(BLOCK_SEPARATOR).map((segment) => segment.trim());
  const texts = blocks.filter((block) => block.length > 0);
  const tokens: string[] = [];
  const blockStarts: number[] = [];
  for (const block of texts.length > 0 ? texts : [EMPTY_ECHO_TEXT]) {
    if (tokens.length > 0) blockStarts.push(tokens.length);
    tokens.push(...tokenize(block));
  }
  return { kind: "text", tokens, tokenDelayMs: 0, reasoning: tokenize(reasoning.length > 0 ? reasoning : EMPTY_ECHO_TEXT), blockStarts };
}

/** `/tool`'s arguments (`<name> <args>`) as a call; undefined without a name. */
function toolCall(args: string): Script | undefined {
  const { word: name, rest } = nextWord(args);
  if (name.length === 0) return undefined;
  // Args are passed through verbatim (even invalid JSON) so clients' error paths can be tested.
  const toolArgs = rest.trim();
  return { kind: "tool_call", name, args: toolArgs.length > 0 ? toolArgs : DEFAULT_TOOL_ARGS };
}

/** Splits off the first whitespace-delimited word; `rest` has its leading whitespace removed. */
function nextWord(text: string): { word: string; rest: string } {
  const match = /^(\S*)\s*([\s\S]*)$/.exec(text);
  return { word: match?.[1] ?? "", rest: match?.[2] ?? "" };
}

function parseNonNegativeInt(word: string): number | undefined {
  return /^\d+$/.test(word) ? Number(word) : undefined;
}

/** `/parallel` arguments: a JSON array of `{name, args}` with at least one call, or undefined. */
function parseParallelCalls(text: string): { name: string; args: string }[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const calls: { name: string; args: string }[] = [];
  for (const item of parsed) {
    if (typeof item !== "object" || item === null || typeof (item as { name?: unknown }).name !== "string") return undefined;
    const { name, args } = item as { name: string; args?: unknown };
    if (name.length === 0) return undefined;
    calls.push({ name, args: JSON.stringify(args ?? {}) });
  }
  return calls;
}

/**
 * The first line of the service's summary request (src/llm/summary.ts SUMMARY_REQUEST_HEADING; a
 * unit test keeps the two equal), whose transcript has one `User: ` line per user message and the
 * last turn after LAST_TURN_MARKER.
 */
export const SUMMARY_REQUEST_HEADING = "Summarize this conversation for its chat list.";
const LAST_TURN_MARKER = "--- last turn ---";
const USER_LINE = "User: ";
/** How much of a prompt the fake's summary and status repeat. */
const SUMMARY_QUOTE_MAX_CHARS = 120;

/**
 * A summary request, answered as a model following its instructions would, deterministically:
 * `Summary: The user asked: <first user message>` and `Status: Replied to: <the last turn's user
 * message>`. When the last turn's prompt is itself `/nonstream-error <status> …`, the call fails as
 * the title call of such a prompt does.
 */
function summaryReply(request: string): Script {
  const lines = request.split("\n");
  const users = lines.filter((line) => line.startsWith(USER_LINE)).map((line) => line.slice(USER_LINE.length));
  const marker = lines.indexOf(LAST_TURN_MARKER);
  const lastTurnUser = marker >= 0 ? lines.slice(marker + 1).find((line) => line.startsWith(USER_LINE)) : undefined;
  const first = users[0] ?? EMPTY_ECHO_TEXT;
  const last = lastTurnUser?.slice(USER_LINE.length) ?? users.at(-1) ?? EMPTY_ECHO_TEXT;
  const inner = parseScript({ kind: "user", text: last });
  if (inner.kind === "nonstream_error") return inner;
  const quote = (text: string) => text.slice(0, SUMMARY_QUOTE_MAX_CHARS);
  return echo(`Summary: The user asked: ${quote(first)}\nStatus: Replied to: ${quote(last)}`);
}

/**
 * Builds the script for a turn. Unknown or malformed directives fall back to echoing the whole
 * text. `offered` is what the request's `tools` declared (read by `/offered-tools`).
 */
export function parseScript(turn: LastTurn, offered: readonly OfferedTool[] = [], context: ScriptContext = {}): Script {
  if (turn.kind === "tool_result") {
    // `/tool-loop` calls its tool again, whatever came back: only the client's step limit ends it.
    const loop = nextWord(turn.userText.trimStart());
    if (loop.word === "/tool-loop") return toolCall(loop.rest) ?? echo(turn.userText);
    // Deterministic answer so a client running a tool loop terminates.
    return echo(`${TOOL_RESULT_PREFIX}${turn.text}`);
  }
  const text = turn.text;
  if (text.startsWith(SUMMARY_REQUEST_HEADING)) return summaryReply(text);
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("/")) return echo(text);

  const { word: directive, rest: args } = nextWord(trimmed);
  switch (directive) {
    case "/slow":
      return slowEcho(args) ?? echo(text);
    case "/gate": {
      const { word: name, rest: afterName } = nextWord(args);
      const { word: delayWord, rest } = nextWord(afterName);
      const delay = parseNonNegativeInt(delayWord);
      if (!GATE_NAME.test(name) || delay === undefined || delay < 1 || delay > MAX_SLOW_DELAY_MS) return echo(text);
      return { ...textReply(rest, context), tokenDelayMs: delay, gate: name };
    }
    case "/tool":
    case "/tool-loop":
      return toolCall(args) ?? echo(text);
    case "/error": {
      const { word: statusWord, rest: afterStatus } = nextWord(args);
      const status = parseNonNegativeInt(statusWord);
      if (status === undefined || status < MIN_ERROR_STATUS || status > MAX_ERROR_STATUS) return echo(text);
      const { word: timesWord, rest: afterTimes } = nextWord(afterStatus);
      const times = parseNonNegativeInt(timesWord);
      return {
        kind: "error",
        status,
        message: `fake-model: scripted error ${status}`,
        failures: times ?? "always",
        afterwards: textReply(times === undefined ? afterStatus : afterTimes),
      };
    }
    case "/midstream-error": {
      const { word: statusWord, rest: afterStatus } = nextWord(args);
      const status = parseNonNegativeInt(statusWord);
      const { word: timesWord, rest: afterTimes } = nextWord(afterStatus);
      const times = parseNonNegativeInt(timesWord);
      if (status === undefined || status < MIN_ERROR_STATUS || status > MAX_ERROR_STATUS || times === undefined) return echo(text);
      return {
        kind: "error",
        status,
        message: `fake-model: scripted mid-stream error ${status}`,
        failures: times,
        afterwards: textReply(afterTimes),
        midStream: true,
      };
    }
    case "/think":
      return thinkScript(args);
    case "/nonstream-error": {
      const { word: statusWord, rest } = nextWord(args);
      const status = parseNonNegativeInt(statusWord);
      if (status === undefined || status < MIN_ERROR_STATUS || status > MAX_ERROR_STATUS) return echo(text);
      return { kind: "nonstream_error", status, message: `fake-model: scripted non-streaming error ${status}`, streaming: echo(rest) };
    }
    case "/long": {
      const count = parseNonNegativeInt(nextWord(args).word);
      if (count === undefined || count < 1 || count > MAX_LONG_TOKENS) return echo(text);
      return { kind: "text", tokens: longTokens(count), tokenDelayMs: 0 };
    }
    case "/stamp": {
      const { word: countWord, rest } = nextWord(args);
      const count = parseNonNegativeInt(countWord);
      if (count === undefined || count < 1 || count > MAX_LONG_TOKENS) return echo(text);
      const delayWord = nextWord(rest).word;
      const delay = delayWord === "" ? 0 : parseNonNegativeInt(delayWord);
      if (delay === undefined || delay > MAX_SLOW_DELAY_MS) return echo(text);
      return { kind: "text", tokens: stampTokens(count), tokenDelayMs: delay, stamped: true };
    }
    case "/parallel": {
      const calls = parseParallelCalls(args.trim());
      return calls === undefined ? echo(text) : { kind: "tool_calls", calls };
    }
    case "/web-search": {
      // `/web-search <query> :: <text>`: search (when offered), then answer `<text>` citing the first result.
      const [query = "", ...rest] = args.split(BLOCK_SEPARATOR).map((segment) => segment.trim());
      if (query.length === 0) return echo(text);
      const answer = rest.filter((segment) => segment.length > 0).join(" ") || `Found results for ${query}.`;
      return context.webSearch ? { ...echo(answer), webSearch: { query } } : echo(`${NO_WEB_SEARCH_PREFIX}${answer}`);
    }
    case "/offered-tools":
      // JSON, so a test can parse the reply back; tokens keep their whitespace, so it survives streaming.
      return echo(JSON.stringify(offered));
    case "/hang":
      return { kind: "hang" };
    case "/cut":
      return { ...echo(args), ending: "cut" };
    case "/reset":
      return { ...echo(args), ending: "reset" };
    default:
      return echo(text);
  }
}
