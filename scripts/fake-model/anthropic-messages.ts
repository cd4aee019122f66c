// Anthropic Messages (`POST /v1/messages`). Streams `event:` + `data:` frames:
// message_start, ping, content blocks (a thinking block, a web search's server_tool_use and
// web_search_tool_result (web-search.ts), text blocks, or one tool_use per call) each opened, filled
// with deltas and closed, then message_delta (stop reason + usage) and message_stop.

import type { LastTurn } from "./script";
import {
  BadRequestError,
  contentText,
  eventFrame,
  isRecord,
  numberField,
  offeredTools,
  pacedTokenFrames,
  stringField,
  textBlocks,
} from "./wire";
import type { Frame, FinishReason, ModelRequest, Reply, WireFormat } from "./wire";
import {
  checkAnthropicMessages,
  encryptedContent,
  encryptedIndex,
  type ReplyWebSearch,
  serverToolUseId,
  webSearchOffer,
} from "./web-search";

const TEXT_BLOCK_TYPES = ["text"] as const;
const DEFAULT_MODEL = "fake";
const OVERLOADED_STATUS = 529;
/** What closes a thinking block; the real one is an opaque signature the client sends back. */
const THINKING_SIGNATURE = "fake-model-signature";

const STOP_REASONS: Record<FinishReason, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
};

/** Anthropic counts cache reads apart from input_tokens (the AI SDK adds them back). */
function inputUsage(reply: Reply): { input_tokens: number; cache_read_input_tokens: number } {
  const cached = reply.usage.cachedInputTokens ?? 0;
  return { input_tokens: reply.usage.inputTokens - cached, cache_read_input_tokens: cached };
}

function anthropicErrorType(status: number): string {
  if (status === OVERLOADED_STATUS) return "overloaded_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

function blocksOf(message: Record<string, unknown>): Record<string, unknown>[] {
  const content = message["content"];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function readTurn(messages: unknown[]): LastTurn {
  const records = messages.filter(isRecord);
  // Tool results travel inside a user message; treat it as a tool turn unless the user also typed text.
  const lastUser = records.findLast(
    (message) => message["role"] === "user" && contentText(message["content"], TEXT_BLOCK_TYPES).length > 0,
  );
  const userText = lastUser === undefined ? "" : contentText(lastUser["content"], TEXT_BLOCK_TYPES);
  const last = records.at(-1);
  if (last !== undefined && last["role"] === "user") {
    const blocks = blocksOf(last);
    const results = blocks.filter((block) => block["type"] === "tool_result");
    const typed = contentText(last["content"], TEXT_BLOCK_TYPES);
    if (results.length > 0 && typed.trim().length === 0) {
      const text = results.map((block) => contentText(block["content"], TEXT_BLOCK_TYPES)).join("\n");
      return { kind: "tool_result", text, userText };
    }
  }
  return { kind: "user", text: userText };
}

/** Non-streaming tool_use blocks need an object; invalid scripted JSON degrades to `{}`. */
function parseToolInput(args: string): unknown {
  try {
    const parsed: unknown = JSON.parse(args);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The search's result block: each page with its encrypted content, which the client must send back as it came. */
function webSearchResultBlock(search: ReplyWebSearch): Record<string, unknown> {
  return {
    type: "web_search_tool_result",
    tool_use_id: serverToolUseId(search),
    content: search.results.map((r) => ({
      type: "web_search_result",
      url: r.url,
      title: r.title,
      encrypted_content: encryptedContent(r),
      page_age: r.pageAge,
    })),
  };
}

/** After a search, the first text block cites the first result. */
function citationOf(search: ReplyWebSearch | undefined, block: number, text: string): Record<string, unknown> | undefined {
  const cited = search?.results[0];
  if (block !== 0 || cited === undefined) return undefined;
  return {
    type: "web_search_result_location",
    url: cited.url,
    title: cited.title,
    encrypted_index: encryptedIndex(cited),
    cited_text: text,
  };
}

/** The usage's server tool count, as the API reports searches (billed per search). */
function serverToolUsage(reply: Reply): Record<string, unknown> {
  return reply.content.type === "text" && reply.content.webSearch ? { server_tool_use: { web_search_requests: 1 } } : {};
}

function messageId(reply: Reply): string {
  return `msg_${reply.responseNumber}`;
}

function toolUseId(callNumber: number): string {
  return `toolu_${callNumber}`;
}

export const anthropicMessages: WireFormat = {
  readRequest(body: unknown): ModelRequest {
    if (!isRecord(body) || !Array.isArray(body["messages"])) {
      throw new BadRequestError("messages: Field required");
    }
    checkAnthropicMessages(body["messages"]);
    const webSearch = webSearchOffer(body["tools"], "anthropic", undefined);
    return {
      ...(webSearch ? { webSearch } : {}),
      model: stringField(body, "model") ?? DEFAULT_MODEL,
      stream: body["stream"] === true,
      includeUsage: true,
      maxTokens: numberField(body, "max_tokens"),
      turn: readTurn(body["messages"]),
      tools: offeredTools(body["tools"]),
    };
  },

  encodeStream(reply: Reply): Frame[] {
    const event = (type: string, payload: Record<string, unknown> = {}): string => eventFrame(type, { type, ...payload });
    const { content } = reply;

    const frames: Frame[] = [
      event("message_start", {
        message: {
          id: messageId(reply),
          type: "message",
          role: "assistant",
          model: reply.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // Like the real API: input tokens are final here, output tokens are a placeholder.
          usage: { ...inputUsage(reply), output_tokens: 1 },
        },
      }),
      event("ping"),
    ];
    if (content.type === "text") {
      let index = 0;
      if (content.reasoning) {
        frames.push(
          event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }),
          ...pacedTokenFrames(content.reasoning, 0, (token) =>
            event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: token } }),
          ),
          event("content_block_delta", { index, delta: { type: "signature_delta", signature: THINKING_SIGNATURE } }),
          event("content_block_stop", { index }),
        );
        index += 1;
      }
      if (content.webSearch) {
        // The query streams as the tool's input; the results arrive whole, in a block of their own.
        const query = JSON.stringify({ query: content.webSearch.query });
        const half = Math.ceil(query.length / 2);
        frames.push(
          event("content_block_start", {
            index,
            content_block: { type: "server_tool_use", id: serverToolUseId(content.webSearch), name: "web_search", input: {} },
          }),
          event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: query.slice(0, half) } }),
          event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: query.slice(half) } }),
          event("content_block_stop", { index }),
          event("content_block_start", { index: index + 1, content_block: webSearchResultBlock(content.webSearch) }),
          event("content_block_stop", { index: index + 1 }),
        );
        index += 2;
      }
      const blocks = textBlocks(content);
      for (const [i, tokens] of blocks.entries()) {
        const citation = citationOf(content.webSearch, i, tokens.join(""));
        frames.push(
          event("content_block_start", { index, content_block: { type: "text", text: "", ...(citation ? { citations: [] } : {}) } }),
          ...(citation ? [event("content_block_delta", { index, delta: { type: "citations_delta", citation } })] : []),
          ...pacedTokenFrames(tokens, reply.tokenDelayMs, (token) =>
            event("content_block_delta", { index, delta: { type: "text_delta", text: token } }),
          ),
        );
        // A stream that stops short stops after its last token, inside the open block.
        if (i === blocks.length - 1 && reply.ending !== "finish") return frames;
        frames.push(event("content_block_stop", { index }));
        index += 1;
      }
    } else {
      // One tool_use block per call, opened, filled and closed in turn.
      content.calls.forEach((call, index) => {
        frames.push(
          event("content_block_start", {
            index,
            content_block: { type: "tool_use", id: toolUseId(call.callNumber), name: call.name, input: {} },
          }),
          ...call.argChunks.map((fragment) =>
            event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: fragment } }),
          ),
          event("content_block_stop", { index }),
        );
      });
    }
    frames.push(
      event("message_delta", {
        delta: { stop_reason: STOP_REASONS[reply.finish], stop_sequence: null },
        usage: { output_tokens: reply.usage.outputTokens, ...serverToolUsage(reply) },
      }),
      event("message_stop"),
    );
    return frames;
  },

  encodeJson(reply: Reply): unknown {
    const { content } = reply;
    const blocks =
      content.type === "text"
        ? [
            ...(content.reasoning ? [{ type: "thinking", thinking: content.reasoning.join(""), signature: THINKING_SIGNATURE }] : []),
            ...(content.webSearch
              ? [
                  {
                    type: "server_tool_use",
                    id: serverToolUseId(content.webSearch),
                    name: "web_search",
                    input: { query: content.webSearch.query },
                  },
                  webSearchResultBlock(content.webSearch),
                ]
              : []),
            ...textBlocks(content).map((tokens, i) => {
              const citation = citationOf(content.webSearch, i, tokens.join(""));
              return { type: "text", text: tokens.join(""), ...(citation ? { citations: [citation] } : {}) };
            }),
          ]
        : content.calls.map((call) => ({
            type: "tool_use",
            id: toolUseId(call.callNumber),
            name: call.name,
            input: parseToolInput(call.args),
          }));
    return {
      id: messageId(reply),
      type: "message",
      role: "assistant",
      model: reply.model,
      content: blocks,
      stop_reason: STOP_REASONS[reply.finish],
      stop_sequence: null,
      usage: { ...inputUsage(reply), output_tokens: reply.usage.outputTokens, ...serverToolUsage(reply) },
    };
  },

  encodeError(status: number, message: string): unknown {
    return { type: "error", error: { type: anthropicErrorType(status), message } };
  },

  // `event: error` with the same body as an HTTP error (the API sends `overloaded_error` this way).
  encodeStreamError(status: number, message: string): string {
    return eventFrame("error", this.encodeError(status, message));
  },
};
