// OpenAI Chat Completions (`POST /v1/chat/completions`), also what
// OpenAI-compatible providers speak. Streams `chat.completion.chunk` objects as
// `data:` lines terminated by `data: [DONE]`. Reasoning goes out as `reasoning_content` deltas, as
// OpenAI-compatible servers (DeepSeek, vLLM) send it; OpenAI's own API sends none, and its AI SDK
// provider reads none. Text blocks are not a notion of this format: they arrive as one text.

import type { LastTurn } from "./script";
import { BadRequestError, contentText, dataFrame, isRecord, numberField, offeredTools, pacedTokenFrames, stringField } from "./wire";
import type { Frame, ModelRequest, Reply, WireFormat } from "./wire";

const TEXT_PART_TYPES = ["text"] as const;
const DEFAULT_MODEL = "fake";

/** OpenAI's error body, shared with the Responses API. */
export function openAIError(status: number, message: string): { error: { message: string; type: string; param: null; code: string } } {
  const [type, code] = openAIErrorKind(status);
  return { error: { message, type, param: null, code } };
}

function openAIErrorKind(status: number): [type: string, code: string] {
  if (status === 401) return ["invalid_request_error", "invalid_api_key"];
  if (status === 403) return ["invalid_request_error", "unsupported_country_region_territory"];
  if (status === 404) return ["invalid_request_error", "model_not_found"];
  if (status === 429) return ["requests", "rate_limit_exceeded"];
  if (status >= 500) return ["server_error", "server_error"];
  return ["invalid_request_error", "invalid_request"];
}

function readTurn(messages: unknown[]): LastTurn {
  const records = messages.filter(isRecord);
  // A trailing run of `tool` messages means the client just ran the tools we asked for.
  const toolResults: string[] = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const message = records[i];
    if (message === undefined || message["role"] !== "tool") break;
    toolResults.unshift(contentText(message["content"], TEXT_PART_TYPES));
  }
  const lastUser = records.findLast((message) => message["role"] === "user");
  const userText = lastUser === undefined ? "" : contentText(lastUser["content"], TEXT_PART_TYPES);
  if (toolResults.length > 0) return { kind: "tool_result", text: toolResults.join("\n"), userText };
  return { kind: "user", text: userText };
}

function usageBody(reply: Reply): Record<string, unknown> {
  const { inputTokens, outputTokens } = reply.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: reply.usage.cachedInputTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: reply.usage.reasoningTokens ?? 0 },
  };
}

export const openAIChat: WireFormat = {
  readRequest(body: unknown): ModelRequest {
    if (!isRecord(body) || !Array.isArray(body["messages"])) {
      throw new BadRequestError("'messages' is a required property");
    }
    const streamOptions = body["stream_options"];
    return {
      model: stringField(body, "model") ?? DEFAULT_MODEL,
      stream: body["stream"] === true,
      includeUsage: isRecord(streamOptions) && streamOptions["include_usage"] === true,
      maxTokens: numberField(body, "max_completion_tokens") ?? numberField(body, "max_tokens"),
      turn: readTurn(body["messages"]),
      tools: offeredTools(body["tools"]),
    };
  },

  encodeStream(reply: Reply): Frame[] {
    const base = {
      id: `chatcmpl-${reply.responseNumber}`,
      object: "chat.completion.chunk",
      created: reply.createdAtSeconds,
      model: reply.model,
      system_fingerprint: null,
    };
    // With include_usage, the real API sets `usage: null` on every chunk but the last.
    const usageNull = reply.includeUsage ? { usage: null } : {};
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
      dataFrame({
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        ...usageNull,
      });

    const frames: Frame[] = [];
    const { content } = reply;
    if (content.type === "text") {
      frames.push(chunk({ role: "assistant", content: "", refusal: null }));
      frames.push(...pacedTokenFrames(content.reasoning ?? [], 0, (token) => chunk({ reasoning_content: token })));
      frames.push(...pacedTokenFrames(content.tokens, reply.tokenDelayMs, (token) => chunk({ content: token })));
      if (reply.ending !== "finish") return frames;
    } else {
      // Per call (its own `index`), the first delta carries id, type and name; later ones only
      // argument fragments. The role comes once, with the first call.
      content.calls.forEach((call, index) => {
        frames.push(
          chunk({
            ...(index === 0 ? { role: "assistant", content: null, refusal: null } : {}),
            tool_calls: [{ index, id: `call_${call.callNumber}`, type: "function", function: { name: call.name, arguments: "" } }],
          }),
        );
        for (const fragment of call.argChunks) {
          frames.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
        }
      });
    }
    frames.push(chunk({}, reply.finish));
    if (reply.includeUsage) {
      frames.push(dataFrame({ ...base, choices: [], usage: usageBody(reply) }));
    }
    frames.push("data: [DONE]\n\n");
    return frames;
  },

  encodeJson(reply: Reply): unknown {
    const { content } = reply;
    const message =
      content.type === "text"
        ? {
            role: "assistant",
            content: content.tokens.join(""),
            refusal: null,
            ...(content.reasoning ? { reasoning_content: content.reasoning.join("") } : {}),
          }
        : {
            role: "assistant",
            content: null,
            refusal: null,
            tool_calls: content.calls.map((call) => ({
              id: `call_${call.callNumber}`,
              type: "function",
              function: { name: call.name, arguments: call.args },
            })),
          };
    return {
      id: `chatcmpl-${reply.responseNumber}`,
      object: "chat.completion",
      created: reply.createdAtSeconds,
      model: reply.model,
      system_fingerprint: null,
      choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finish }],
      usage: usageBody(reply),
    };
  },

  encodeError: openAIError,

  // The error object alone, as a `data:` chunk of the stream.
  encodeStreamError: (status, message) => dataFrame(openAIError(status, message)),
};
