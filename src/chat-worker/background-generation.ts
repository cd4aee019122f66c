/**
 * One model call of the chat's background generation (titles, summaries and status labels): the
 * chat's own model and attribution, a `stream` stage of scope=background that is a trace root of
 * its own (spec "Observability": work detached from the turn), and the call's own retry budget
 * (src/llm/background-call.ts). The turn never waits for it; an interrupt does not cancel it.
 */
import type { ModelMessage } from "ai";
import type { ObjectTracing } from "../observability/object-tracing";
import { type BackgroundCallResult, backgroundModelCall } from "../llm/background-call";
import type { ChatRow } from "../db/schema/chats";
import type { ResolvedModelConfig } from "../model-configs/resolve";
import { attributedModel } from "./attributed-model";
import { attributionFor } from "./attribution";
import { modelForTurn } from "./model-for-turn";
import type { RunnerDeps } from "./task-context";
import { stageModel } from "./task-tracing";

export interface BackgroundGenerationDeps extends Pick<RunnerDeps, "db" | "config" | "sleep" | "fetch" | "now" | "attributionKeys"> {
  /** Keeps work beside the turn alive in the runtime (DurableObjectState.waitUntil). */
  background(work: Promise<unknown>): void;
  /** The call is a background stage, a trace root of its own. */
  tracing?: Pick<ObjectTracing, "tracer" | "flush">;
}

/** What a background call is for: the stage's `purpose` attribute. */
export type BackgroundPurpose = "title" | "summary";

export interface BackgroundGeneration {
  purpose: BackgroundPurpose;
  system: string;
  messages: ModelMessage[];
  maxOutputTokens: number;
  /** The model the chat's turn just used, when known: no config read of its own. */
  model?: ResolvedModelConfig | undefined;
}

/** Resolves to the model's answer; throws the last failure once the call's budget is spent. */
export async function runBackgroundGeneration(
  deps: BackgroundGenerationDeps,
  chat: ChatRow,
  generation: BackgroundGeneration,
): Promise<BackgroundCallResult> {
  const { db, config } = deps;
  // The same model and attribution a turn of this chat would use (a suspended owner: no call).
  const [resolved, attribution] = await Promise.all([generation.model ?? modelForTurn(db, chat), attributionFor(deps, chat)]);
  const model = await attributedModel(resolved, attribution, config.CHAT_SECRETS_KEYS, { fetch: deps.fetch });
  const stage = deps.tracing?.tracer.start("stream", {
    identity: { scope: "background", chatKind: chat.parentChatId === null ? "root" : "subagent" },
    model: stageModel(resolved, model.client.transport, null),
    attributes: { purpose: generation.purpose, chat_id: chat.id },
  });
  try {
    const result = await backgroundModelCall({
      model: model.client.model,
      system: generation.system,
      messages: generation.messages,
      maxOutputTokens: generation.maxOutputTokens,
      // The config's default effort, not the chat's: a title or a label needs little thought.
      providerOptions: model.providerOptions(),
      maxRetries: config.CHAT_MAX_GENERATION_RETRIES,
      retryInitialMs: config.CHAT_RETRY_INITIAL_DELAY_MS,
      // Background work is not the turn's: an interrupt or a new message does not cancel it.
      abortSignal: new AbortController().signal,
      sleep: deps.sleep,
    });
    stage?.end();
    return result;
  } catch (error) {
    stage?.end({ error });
    throw error;
  } finally {
    deps.tracing?.flush();
  }
}
