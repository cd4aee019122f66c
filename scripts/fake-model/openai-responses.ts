// OpenAI Responses (`POST /v1/responses`). Streams typed events (`event:` +
// `data:` lines, each with a monotonically increasing `sequence_number`) that
// open and close output items, content parts and function calls explicitly.

import { openAIError } from "./openai-chat";
import type { LastTurn } from "./script";
import { BadRequestError, contentText, eventFrame, isRecord, numberField, offeredTools, pacedTokenFrames, stringField } from "./wire";
import type { Frame, ModelRequest, Reply, ReplyToolCall, WireFormat } from "./wire";

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
  if (toolResults.length > 0) return { kind: "tool_result", text: toolResults.join("\n") };

  // User messages may omit `type` (EasyInputMessage) or say `type: "message"`.
  const lastUser = items.findLast((item) => item["role"] === "user" && (item["type"] === undefined || item["type"] === "message"));
  return { kind: "user", text: lastUser === undefined ? "" : contentText(lastUser["content"], INPUT_TEXT_TYPES) };
}

function usageBody(reply: Reply): Record<string, unknown> {
  const { inputTokens, outputTokens } = reply.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

function messageItem(reply: Reply, text: string, status: string): Record<string, unknown> {
  return {
    id: `msg_${reply.responseNumber}`,
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
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

/** The finished output items, as found in `output_item.done` events and the final response. */
function finalItems(reply: Reply): Record<string, unknown>[] {
  const { content } = reply;
  const status = reply.finish === "length" ? "incomplete" : "completed";
  return content.type === "text"
    ? [messageItem(reply, content.tokens.join(""), status)]
    : content.calls.map((call, index) => functionCallItem(reply, call, index, call.args, status));
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
  readRequest(body: unknown): ModelRequest {
    if (!isRecord(body) || body["input"] === undefined) {
      throw new BadRequestError("Missing required parameter: 'input'.");
    }
    return {
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
    const outputIndex = 0;
    const { content } = reply;

    const frames: Frame[] = [
      event("response.created", { response: responseBody(reply, "in_progress") }),
      event("response.in_progress", { response: responseBody(reply, "in_progress") }),
    ];
    if (content.type === "text") {
      const itemId = `msg_${reply.responseNumber}`;
      const text = content.tokens.join("");
      const part = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      frames.push(
        event("response.output_item.added", { output_index: outputIndex, item: messageItem(reply, "", "in_progress") }),
        event("response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } }),
        ...pacedTokenFrames(content.tokens, reply.tokenDelayMs, (token) =>
          event("response.output_text.delta", { ...part, delta: token, logprobs: [] }),
        ),
      );
      if (reply.ending !== "finish") return frames;
      frames.push(
        event("response.output_text.done", { ...part, text, logprobs: [] }),
        event("response.content_part.done", { ...part, part: { type: "output_text", text, annotations: [] } }),
      );
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
    if (content.type === "text") {
      frames.push(event("response.output_item.done", { output_index: outputIndex, item: finalItems(reply)[0] }));
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
};
