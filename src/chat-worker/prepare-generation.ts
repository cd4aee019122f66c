/**
 * Generation preparation: everything a model call needs, resolved from the chat as it is now. The
 * model (revalidated, src/chat-worker/model-for-turn.ts), its client and transport (resolved once, here),
 * the owner's attribution, the step's local tools (src/tools), the prompt with its file bytes and
 * the tools' guidance, and the provider options converted for that transport with the turn's effort.
 */
import { AttributionOwnerNotFoundError, AttributionOwnerSuspendedError } from "../accounts/synthetic-key";
import type { ModelConfigRow } from "../model-configs/configs";
import type { ResolvedModelConfig } from "../model-configs/resolve";
import type { TurnModelRows } from "../model-configs/turn-model-rows";
import { NoDefaultModelConfigError } from "../model-configs/errors";
import type { ChatRow } from "../db/schema/chats";
import type { HistoryRow } from "../llm/active-history";
import { type ModelPrompt, buildPrompt } from "../llm/prompt";
import type { ModelClient } from "../llm/provider";
import type { ProviderOptions } from "../llm/provider-options";
import { attributedModel } from "./attributed-model";
import { attributionFor } from "./attribution";
import { modelForTurn } from "./model-for-turn";
import { loadPromptFiles } from "./prompt-files";
import type { TaskContext } from "./task-context";
import { type ChatTools, toolStepOf } from "../tools/chat-tools";
import { transportFor } from "../llm/transport";
import type { StageModel } from "../observability/stage-tracing";
import { providerAttempts } from "./provider-attempts";
import { stageModel } from "./task-tracing";
import { chatToolNames, type ProviderTools, providerToolsFor } from "../llm/provider-tools";
import { logger } from "../log/log";
import type { DebugCapture } from "../debug-runs/capture";

export interface PreparedGeneration {
  client: ModelClient;
  /** The step's local tools: offered to the model and run from this same registry. */
  tools: ChatTools;
  config: ModelConfigRow;
  /** The config with its provider, as revalidated for this call (the title after the turn reuses it). */
  resolved: ResolvedModelConfig;
  prompt: ModelPrompt;
  providerOptions: ProviderOptions | undefined;
  /** The model attributes of the stages that run on it. */
  model: StageModel;
  /** Tools the provider runs itself (web search), offered next to `tools` (src/llm/provider-tools.ts). */
  providerTools: ProviderTools;
  /** The call's debug capture, when the chat records debug runs: told how the call ended, then saved. */
  debug: DebugCapture | undefined;
}

/**
 * Throws NoDefaultModelConfigError (no usable model), AttributionOwnerSuspendedError or
 * AttributionOwnerNotFoundError (the owner may not generate); the caller turns those into FinishError.
 */
export async function prepareGeneration(
  ctx: TaskContext,
  read: { chat: ChatRow; history: readonly HistoryRow[]; models?: TurnModelRows },
  /** The chat's model as the step already resolved it from this same read (the compaction gate). */
  chatModel?: ResolvedModelConfig,
): Promise<PreparedGeneration> {
  const { chat, history } = read;
  // The tools start at once (an MCP server's connect is not the database's). The model config and
  // the attribution check go side by side only when two connections are warm: otherwise the second
  // read would open a connection (a chat's first turn, or one after the server dropped one), which
  // costs more round trips than running them one after the other.
  const pendingTools = ctx.toolsFor(chat, toolStepOf(history, ctx.decisions));
  pendingTools.catch(() => {});
  const chatModelNow = async () => chatModel ?? modelForTurn(ctx.db, chat, read.models);
  const [resolved, attribution] =
    ctx.store.pool.idleCount >= 2
      ? await Promise.all([chatModelNow(), attributionFor(ctx, chat)])
      : [await chatModelNow(), await attributionFor(ctx, chat)];
  const tools = await pendingTools;
  const traced = stageModel(resolved, transportFor(resolved.provider, resolved.config) ?? resolved.provider.type, chat.lastReasoningEffort);
  const model = await attributedModel(resolved, attribution, ctx.config.CHAT_SECRETS_KEYS, {
    fetch: providerAttempts(ctx.trace, traced, ctx.fetch),
    debug: ctx.debugRuns?.call(chat, "step", ctx.trace.traceId),
  });
  if (tools.mcpConnect) {
    const { startedAtMs, ms, connected, failed } = tools.mcpConnect;
    const stage = ctx.trace.stage("mcp_connect", { startMs: startedAtMs, attributes: { connected, failed } });
    stage.end({ endMs: startedAtMs + ms, ...(connected === 0 ? { error: `no MCP server connected (${failed} failed)` } : {}) });
  }
  const provider = providerToolsFor(model.client.transport, resolved.config, chatToolNames(chat, tools.registry));
  for (const name of provider.shadowed) logger.warn("provider_tool_shadowed", { chat_id: chat.id, tool_name: name });
  const files = await loadPromptFiles(ctx.store.pool, ctx.files, chat.id, history, model.client.transport);
  return {
    client: model.client,
    tools,
    config: resolved.config,
    resolved,
    prompt: buildPrompt({ chat, history, toolGuidance: tools.guidance, ...files, providerTools: provider.tools }),
    providerOptions: model.providerOptions(chat.lastReasoningEffort),
    model: traced,
    providerTools: provider.tools,
    debug: model.debug,
  };
}

/**
 * The FinishError message for a preparation failure no retry can fix (no model, an owner who may
 * not generate); undefined for any other error.
 */
export function preparationFailureMessage(err: unknown): string | undefined {
  if (err instanceof NoDefaultModelConfigError) return "No model is configured for this organization.";
  if (err instanceof AttributionOwnerSuspendedError) return "The chat's owner is suspended: generation is blocked.";
  if (err instanceof AttributionOwnerNotFoundError) return "The chat's owner no longer exists: generation is blocked.";
  return undefined;
}
