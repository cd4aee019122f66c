/**
 * Folds the AI SDK's stream parts into one response: the assistant message's parts (docs/api.md
 * ChatMessagePart, in the order the model produced them), the calls to run, the results of calls
 * the SDK rejected, and how the stream ended. Reports each streamed part in the StreamPart shape.
 *
 * Tools the provider ran itself (web search) become provider-tool-call / provider-tool-result
 * parts and the pages they drew on `source` parts: recorded, never among the calls to run. They
 * stream, and leave in committed messages, as Coder's `tool-call` / `tool-result` with
 * `provider_executed` (../wire/message-part.ts).
 */
import type { CallWarning, FinishReason, LanguageModelUsage, TextStreamPart, ToolSet } from "ai";
import type { ToolResultPart } from "../chatstate/rules";
import type { ChatMessagePart } from "../db/schema/chats";
import type { StreamPart } from "../wire/stream-part";
import { providerPartToWire } from "../wire/message-part";
import { MAX_SOURCES_PER_MESSAGE } from "./provider-tool-parts";

export interface StepToolCall {
  tool_call_id: string;
  tool_name: string;
  args: unknown;
  /** Client-executed (the chat's unsafe_dynamic_tools); otherwise a local tool the runner executes. */
  dynamic: boolean;
}

type TextLike = Extract<ChatMessagePart, { type: "text" | "reasoning" }>;

export class ResponseCollector {
  readonly toolCalls: StepToolCall[] = [];
  readonly toolErrors: ToolResultPart[] = [];
  readonly warnings: CallWarning[] = [];
  finish: { finishReason: FinishReason; usage: LanguageModelUsage } | undefined;
  failure: { error: unknown } | undefined;

  readonly #parts: ChatMessagePart[] = [];
  /** Text and reasoning blocks by stream id: each block is one part. */
  readonly #blocks = new Map<string, TextLike>();
  readonly #toolNames = new Map<string, string>();
  /** Inputs the provider streams for a tool it runs itself: not shown as a call being written. */
  readonly #providerInputs = new Set<string>();
  readonly #sourceUrls = new Set<string>();

  constructor(
    private readonly dynamicNames: ReadonlySet<string>,
    private readonly emit: (part: StreamPart) => void,
    /** The provider family ("openai", "anthropic") recorded on provider-executed parts. */
    private readonly provider = "",
  ) {}

  accept(part: TextStreamPart<ToolSet>): void {
    switch (part.type) {
      case "start-step":
        this.warnings.push(...part.warnings);
        break;
      case "text-delta":
      case "reasoning-delta": {
        if (part.text.length === 0) break;
        const type = part.type === "text-delta" ? "text" : "reasoning";
        this.#append(type, part.id, part.text);
        this.emit({ type, text: part.text });
        break;
      }
      case "tool-input-start":
        if (part.providerExecuted) this.#providerInputs.add(part.id);
        this.#toolNames.set(part.id, part.toolName);
        break;
      case "tool-input-delta":
        // An empty fragment would read as a complete call without arguments to Coder's clients.
        if (part.delta.length === 0 || this.#providerInputs.has(part.id)) break;
        this.emit({ type: "tool-call", tool_call_id: part.id, tool_name: this.#toolNames.get(part.id) ?? "", args_delta: part.delta });
        break;
      case "tool-call": {
        if (part.providerExecuted) {
          this.#providerCall(part.toolCallId, part.toolName, part.input);
          break;
        }
        const invalid = "invalid" in part && part.invalid === true;
        // A rejected call may carry its raw, unparsable input; providers want an object back.
        const args = invalid && (typeof part.input !== "object" || part.input === null) ? {} : part.input;
        this.#parts.push({ type: "tool-call", tool_call_id: part.toolCallId, tool_name: part.toolName, args });
        this.emit({ type: "tool-call", tool_call_id: part.toolCallId, tool_name: part.toolName, args });
        if (!invalid) {
          this.toolCalls.push({
            tool_call_id: part.toolCallId,
            tool_name: part.toolName,
            args,
            dynamic: this.dynamicNames.has(part.toolName),
          });
        }
        break;
      }
      case "tool-result":
        // Results of our own tools are never in this stream (no tool has an execute); only the provider's.
        if (part.providerExecuted) this.#providerResult(part.toolCallId, part.toolName, part.output, false);
        break;
      case "tool-error":
        if (part.providerExecuted) {
          this.#providerResult(part.toolCallId, part.toolName, part.error, true);
          break;
        }
        // The SDK's answer to a call it rejected (unknown tool, input not JSON or not matching the schema).
        this.toolErrors.push({
          type: "tool-result",
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
          result: { error: errorText(part.error) },
          is_error: true,
        });
        break;
      case "source":
        if (part.sourceType === "url") this.#source(part.url, part.title);
        break;
      case "finish":
        this.finish = { finishReason: part.finishReason, usage: part.totalUsage };
        break;
      case "error":
        this.failure ??= { error: part.error };
        break;
      default:
        break;
    }
  }

  /** The assistant message so far; empty text and reasoning blocks are left out. */
  assistant(): ChatMessagePart[] {
    return this.#parts
      .filter((part) => (part.type === "text" || part.type === "reasoning" ? part.text.length > 0 : true))
      .map((p) => ({ ...p }));
  }

  #providerCall(toolCallId: string, toolName: string, input: unknown): void {
    const part = {
      type: "provider-tool-call" as const,
      tool_call_id: toolCallId,
      tool_name: toolName,
      args: input ?? {},
      provider: this.provider,
    };
    this.#parts.push(part);
    this.emit(providerPartToWire(part));
  }

  #providerResult(toolCallId: string, toolName: string, result: unknown, isError: boolean): void {
    const part = {
      type: "provider-tool-result" as const,
      tool_call_id: toolCallId,
      tool_name: toolName,
      result: result ?? null,
      is_error: isError,
      provider: this.provider,
    };
    this.#parts.push(part);
    // Streamed as it will be committed: Coder's tool-result, without the provider's opaque replay data.
    this.emit(providerPartToWire(part));
  }

  /** Once per URL, and at most MAX_SOURCES_PER_MESSAGE: a provider may list a page per result and per citation. */
  #source(url: string, title: string | undefined): void {
    if (this.#sourceUrls.has(url) || this.#sourceUrls.size >= MAX_SOURCES_PER_MESSAGE) return;
    this.#sourceUrls.add(url);
    const part = title ? { type: "source" as const, url, title } : { type: "source" as const, url };
    this.#parts.push(part);
    this.emit(part);
  }

  #append(type: "text" | "reasoning", id: string, delta: string): void {
    const key = `${type}:${id}`;
    const block = this.#blocks.get(key);
    if (block) {
      block.text += delta;
      return;
    }
    const part: TextLike = { type, text: delta };
    this.#blocks.set(key, part);
    this.#parts.push(part);
  }
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  if (error instanceof Error) return error.message;
  return JSON.stringify(error) ?? String(error);
}
