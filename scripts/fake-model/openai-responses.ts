// OpenAI Responses (`POST /v1/responses`). Streams typed events (`event:` +
// `data:` lines, each with a monotonically increasing `sequence_number`) that
// open and close output items, content parts and function calls explicitly. A reasoning block is a
// `reasoning` item with one summary part; each text block is a `message` item of its own; a web
// search (web-search.ts) is a `web_search_call` item before them, cited by the first text block.

import { openAIError } from "./openai-chat";
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
import type { Frame, ModelRequest, Reply, ReplyToolCall, RequestContext, WireFormat } from "./wire";
import { checkResponsesInput, type ReplyWebSearch, webSearchItemId, webSearchOffer } from "./web-search";

const INPUT_TEXT_TYPES = ["input_text"] as const;
const DEFAULT_MODEL = "fake";

function readTurn(input: unknown): LastTurn {
  if (typeof input === "string") return { kind: "user", text: input };
  if (!Array.isArray(input)) return { kind: "user", text: "" };
  const items = input.filter(isRecord);

  // A trailing run of function_call_output items means the client ran our tool calls.
  const toolResults: string[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item === undefined || item["type"] !== "function_call_output") break;
    toolResults.unshift(contentText(item["output"], INPUT_TEXT_TYPES));
  }
  // User messages may omit `type` (EasyInputMessage) or say `type: "message"`.
  const lastUser = items.findLast((item) => item["role"] === "user" && (item["type"] === undefined || item["type"] === "message"));
  const userText = lastUser === undefined ? "" : contentText(lastUser["content"], INPUT_TEXT_TYPES);
  if (toolResults.length > 0) return { kind: "tool_result", text: toolResults.join("\n"), userText };
  return { kind: "user", text: userText };
}

function usageBody(reply: Reply): Record<string, unknown> {
  const { inputTokens, outputTokens } = reply.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: reply.usage.cachedInputTokens ?? 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reply.usage.reasoningTokens ?? 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

/** One message item per text block; the first keeps the single-block id. */
function messageId(reply: Reply, block: number): string {
  return block === 0 ? `msg_${reply.responseNumber}` : `msg_${reply.responseNumber}_${block}`;
}

function messageItem(reply: Reply, block: number, text: string, status: string): Record<string, unknown> {
  return {
    id: messageId(reply, block),
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: annotations(reply, block, text), logprobs: [] }],
  };
}

/** After a web search, the first text block cites the first result over its whole text. */
function annotations(reply: Reply, block: number, text: string): Record<string, unknown>[] {
  const search = reply.content.type === "text" ? reply.content.webSearch : undefined;
  const cited = search?.results[0];
  if (block !== 0 || cited === undefined) return [];
  return [{ type: "url_citation", start_index: 0, end_index: text.length, url: cited.url, title: cited.title }];
}

/** The web_search_call item: in progress without its action, done with it (and its sources when asked for). */
function webSearchItem(search: ReplyWebSearch, status: "in_progress" | "completed"): Record<string, unknown> {
  const item = { id: webSearchItemId(search), type: "web_search_call", status };
  if (status === "in_progress") return item;
  const sources = search.includeSources ? { sources: search.results.map((r) => ({ type: "url", url: r.url })) } : {};
  return { ...item, action: { type: "search", query: search.query, ...sources } };
}

/** One output item per call; the first keeps the single-call id. */
function functionCallId(reply: Reply, index: number): string {
  return index === 0 ? `fc_${reply.responseNumber}` : `fc_${reply.responseNumber}_${index}`;
}

function functionCallItem(reply: Reply, call: ReplyToolCall, index: number, args: string, status: string): Record<string, unknown> {
  return {
    id: functionCallId(reply, index),
    type: "function_call",
    status,
    arguments: args,
    call_id: `call_${call.callNumber}`,
    name: call.name,
  };
}

/** The reasoning item: no encrypted content (the request did not ask for it), its text as one summary part. */
function reasoningItem(reply: Reply, text: string | null): Record<string, unknown> {
  return {
    id: `rs_${reply.responseNumber}`,
    type: "reasoning",
    encrypted_content: null,
    summary: text === null ? [] : [{ type: "summary_text", text }],
  };
}

/** The finished output items, as found in `output_item.done` events and the final response. */
function finalItems(reply: Reply): Record<string, unknown>[] {
  const { content } = reply;
  const status = reply.finish === "length" ? "incomplete" : "completed";
  if (content.type !== "text") return content.calls.map((call, index) => functionCallItem(reply, call, index, call.args, status));
  return [
    ...(content.reasoning ? [reasoningItem(reply, content.reasoning.join(""))] : []),
    ...(content.webSearch ? [webSearchItem(content.webSearch, "completed")] : []),
    ...textBlocks(content).map((tokens, block) => messageItem(reply, block, tokens.join(""), status)),
  ];
}

function responseBody(reply: Reply, phase: "in_progress" | "final"): Record<string, unknown> {
  const truncated = reply.finish === "length";
  const status = phase === "in_progress" ? "in_progress" : truncated ? "incomplete" : "completed";
  return {
    id: `resp_${reply.responseNumber}`,
    object: "response",
    created_at: reply.createdAtSeconds,
    status,
    error: null,
    incomplete_details: phase === "final" && truncated ? { reason: "max_output_tokens" } : null,
    model: reply.model,
    output: phase === "final" ? finalItems(reply) : [],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    metadata: {},
    usage: phase === "final" ? usageBody(reply) : null,
  };
}

export const openAIResponses: WireFormat = {
  readRequest(body: unknown, context: RequestContext): ModelRequest {
    if (!isRecord(body) || body["input"] === undefined) {
      throw new BadRequestError("Missing required parameter: 'input'.");
    }
    checkResponsesInput(body["input"], context.storedItems);
    const webSearch = webSearchOffer(body["tools"], "openai_responses", body["include"]);
    return {
      ...(webSearch ? { webSearch } : {}),
      storesItems: body["store"] !== false,
      model: stringField(body, "model") ?? DEFAULT_MODEL,
      stream: body["stream"] === true,
      includeUsage: true,
      maxTokens: numberField(body, "max_output_tokens"),
      turn: readTurn(body["input"]),
      tools: offeredTools(body["tools"]),
    };
  },

  encodeStream(reply: Reply): Frame[] {
    let sequence = 0;
    const event = (type: string, payload: Record<string, unknown>): string =>
      eventFrame(type, { type, sequence_number: sequence++, ...payload });
    const { content } = reply;

    const frames: Frame[] = [
      event("response.created", { response: responseBody(reply, "in_progress") }),
      event("response.in_progress", { response: responseBody(reply, "in_progress") }),
    ];
    if (content.type === "text") {
      const done = finalItems(reply);
      let outputIndex = 0;
      if (content.reasoning) {
        const text = content.reasoning.join("");
        const summary = { item_id: `rs_${reply.responseNumber}`, output_index: outputIndex, summary_index: 0 };
        frames.push(
          event("response.output_item.added", { output_index: outputIndex, item: reasoningItem(reply, null) }),
          event("response.reasoning_summary_part.added", { ...summary, part: { type: "summary_text", text: "" } }),
          ...pacedTokenFrames(content.reasoning, 0, (token) =>
            event("response.reasoning_summary_text.delta", { ...summary, delta: token }),
          ),
          event("response.reasoning_summary_text.done", { ...summary, text }),
          event("response.reasoning_summary_part.done", { ...summary, part: { type: "summary_text", text } }),
          event("response.output_item.done", { output_index: outputIndex, item: done[outputIndex] }),
        );
        outputIndex += 1;
      }
      if (content.webSearch) {
        const search = { item_id: webSearchItemId(content.webSearch), output_index: outputIndex };
        frames.push(
          event("response.output_item.added", { output_index: outputIndex, item: webSearchItem(content.webSearch, "in_progress") }),
          event("response.web_search_call.in_progress", search),
          event("response.web_search_call.searching", search),
          event("response.web_search_call.completed", search),
          event("response.output_item.done", { output_index: outputIndex, item: done[outputIndex] }),
        );
        outputIndex += 1;
      }
      const blocks = textBlocks(content);
      for (const [block, tokens] of blocks.entries()) {
        const text = tokens.join("");
        const part = { item_id: messageId(reply, block), output_index: outputIndex, content_index: 0 };
        frames.push(
          event("response.output_item.added", { output_index: outputIndex, item: messageItem(reply, block, "", "in_progress") }),
          event("response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } }),
          ...pacedTokenFrames(tokens, reply.tokenDelayMs, (token) =>
            event("response.output_text.delta", { ...part, delta: token, logprobs: [] }),
          ),
        );
        // A stream that stops short stops after its last token, inside the open item.
        if (block === blocks.length - 1 && reply.ending !== "finish") return frames;
        const cited = annotations(reply, block, text);
        frames.push(
          ...cited.map((annotation, annotationIndex) =>
            event("response.output_text.annotation.added", { ...part, annotation_index: annotationIndex, annotation }),
          ),
          event("response.output_text.done", { ...part, text, logprobs: [] }),
          event("response.content_part.done", { ...part, part: { type: "output_text", text, annotations: cited } }),
          event("response.output_item.done", { output_index: outputIndex, item: done[outputIndex] }),
        );
        outputIndex += 1;
      }
    } else {
      const done = finalItems(reply);
      content.calls.forEach((call, index) => {
        const itemId = functionCallId(reply, index);
        frames.push(
          event("response.output_item.added", { output_index: index, item: functionCallItem(reply, call, index, "", "in_progress") }),
          ...call.argChunks.map((fragment) =>
            event("response.function_call_arguments.delta", { item_id: itemId, output_index: index, delta: fragment }),
          ),
          event("response.function_call_arguments.done", { item_id: itemId, output_index: index, arguments: call.args }),
          event("response.output_item.done", { output_index: index, item: done[index] }),
        );
      });
    }
    frames.push(
      event(reply.finish === "length" ? "response.incomplete" : "response.completed", {
        response: responseBody(reply, "final"),
      }),
    );
    return frames;
  },

  encodeJson(reply: Reply): unknown {
    return responseBody(reply, "final");
  },

  encodeError: openAIError,

  // The `error` event (the API's `ResponseErrorEvent`): code and message at the top level.
  encodeStreamError(status: number, message: string): string {
    const { code } = openAIError(status, message).error;
    return eventFrame("error", { type: "error", sequence_number: 0, code, message, param: null });
  },
};
