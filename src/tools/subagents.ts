/**
 * The subagent tools (spec "Generation goroutine": spawn_agent, wait_agent, message_agent,
 * interrupt_agent, list_agents, list_subagent_models; close_agent a deprecated alias of
 * interrupt_agent so old histories still resolve). Offered to root chats only: a child gets none,
 * so families are one level deep (no grandchildren, no unbounded fan-out). docs/subagents.md.
 *
 * A child is created, messaged and interrupted through its own ChatObject (SubagentHost), which
 * applies the transition and starts the child's worker. Every read of a child's state comes from
 * Postgres. Failures are error tool results the model reads, never a failed turn.
 */
import { z } from "zod";
import type { Database } from "../db/database";
import type { Queryable } from "../db/rows";
import { listModelConfigs } from "../model-configs/configs";
import { REASONING_EFFORTS } from "../model-configs/options";
import { resolveModelConfig } from "../model-configs/resolve";
import { SUBAGENT_CONTEXTS } from "../db/schema/subagents";
import { defineLocalTool, type LocalTool, type LocalToolContext } from "../llm/tools";
import { getChild, isSettled, latestAnswer, listChildren, SUBAGENT_TYPE_LABEL, type ChildSummary } from "../subagents/children";
import type { ChildAnswer, SubagentHost } from "../subagents/host";
import { SUBAGENT_GUIDANCE, SUBAGENT_SYSTEM_PROMPTS } from "../subagents/prompts";
import { childIdFor, selectChildModel } from "../subagents/spawn";
import { assertSubagentQuotas, type SubagentQuotas } from "../subagents/quotas";
import type { ToolChat, ToolFamily } from "./chat-tools";

export const SUBAGENT_TOOL_NAMES = [
  "spawn_agent",
  "wait_agent",
  "message_agent",
  "interrupt_agent",
  "close_agent",
  "list_agents",
  "list_subagent_models",
] as const;

/** wait_agent's timeout when the model gives none, and the most it may ask for. */
export const DEFAULT_WAIT_SECONDS = 300;
export const MAX_WAIT_SECONDS = 600;
/** Longest spawn prompt / message accepted (a child's first message). */
const MAX_PROMPT_CHARS = 100_000;

export interface SubagentToolDeps {
  db: Database;
  /** The same database for the raw reads of src/subagents/children.ts. */
  pool: Queryable;
  host: SubagentHost;
  now(): number;
  /** Children one turn may spawn, and one family may hold (CHAT_MAX_SUBAGENTS_PER_*). */
  quotas: SubagentQuotas;
}

/** Root chats only: a subagent cannot spawn (see the file header). */
export function offersSubagents(chat: Pick<ToolChat, "parentChatId">): boolean {
  return chat.parentChatId === null;
}

export function subagentToolFamily(deps: SubagentToolDeps): ToolFamily {
  return {
    name: "subagents",
    async forChat(chat) {
      if (!offersSubagents(chat)) return null;
      return { tools: subagentTools(deps, chat), guidance: SUBAGENT_GUIDANCE };
    },
  };
}

const agentId = z.uuid();
const SpawnArgs = z.object({
  type: z.enum(SUBAGENT_CONTEXTS).default("general"),
  prompt: z.string().trim().min(1).max(MAX_PROMPT_CHARS),
  title: z.string().trim().min(1).max(200).optional(),
  model_config_id: z.string().optional(),
  reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
});
const WaitArgs = z.object({ agent_id: agentId, timeout_seconds: z.number().positive().max(MAX_WAIT_SECONDS).optional() });
const MessageArgs = z.object({
  agent_id: agentId,
  message: z.string().trim().min(1).max(MAX_PROMPT_CHARS),
  interrupt: z.boolean().optional(),
});
const AgentArgs = z.object({ agent_id: agentId });

function parseArgs<T>(schema: z.ZodType<T>, args: unknown): T {
  const parsed = schema.safeParse(args ?? {});
  if (!parsed.success)
    throw new Error(`invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/** A child command's failure as the error the model reads: what the API would answer for it. */
function unwrapOutcome<T>(result: ChildAnswer<T>): T {
  if (result.ok) return result.value;
  throw new Error(result.refusal);
}

function agentWire(child: ChildSummary) {
  return {
    agent_id: child.id,
    type: child.type,
    title: child.title,
    status: child.status,
    archived: child.archived,
    ...(child.lastError ? { last_error: child.lastError } : {}),
  };
}

const agentIdSchema = { type: "string", format: "uuid", description: "The agent_id spawn_agent returned." } as const;

function subagentTools(deps: SubagentToolDeps, chat: ToolChat): LocalTool[] {
  const { db, host, pool } = deps;

  async function ownChild(id: string): Promise<ChildSummary> {
    const child = await getChild(pool, chat.id, id);
    if (!child) throw new Error(`no subagent ${id} of this chat`);
    return child;
  }

  const spawn = defineLocalTool<unknown>({
    name: "spawn_agent",
    description:
      "Start a subagent: a child chat that works on `prompt` on its own and returns at once with its agent_id. " +
      "type general does any task; explore investigates without changing anything. " +
      "Optional model_config_id and reasoning_effort (see list_subagent_models) override the model it runs on.",
    inputSchema: {
      type: "object",
      properties: {
        type: { type: "string", enum: [...SUBAGENT_CONTEXTS], description: "general (default) or explore." },
        prompt: { type: "string", description: "The task, self-contained: the subagent sees nothing else of this chat." },
        title: { type: "string", description: "A short title for the subagent's chat." },
        model_config_id: { type: "string", description: "A model config id from list_subagent_models." },
        reasoning_effort: { type: "string", enum: [...REASONING_EFFORTS] },
      },
      required: ["prompt"],
      additionalProperties: false,
    },
    async execute(args, context: LocalToolContext) {
      const input = parseArgs(SpawnArgs, args);
      const childId = await childIdFor(chat.id, context.toolCallId);
      const already = await getChild(pool, chat.id, childId);
      if (already) return { ...agentWire(already), model_config_id: already.modelConfigId, reasoning_effort: already.reasoningEffort };
      // Beyond a quota: an error result the model reads, and no child.
      await assertSubagentQuotas(pool, chat.id, deps.quotas);
      // An unusable explicit model is a SpawnArgumentError: an error result, and no child.
      const selection = await selectChildModel(db, {
        parentId: chat.id,
        organizationId: chat.organizationId,
        ownerId: chat.ownerId,
        type: input.type,
        modelConfigId: input.model_config_id,
        reasoningEffort: input.reasoning_effort,
      });
      const created = await host.createChild({
        chatId: childId,
        callerId: chat.ownerId,
        organizationId: chat.organizationId,
        parentChatId: chat.id,
        content: [{ type: "text", text: input.prompt }],
        title: input.title,
        systemPrompt: SUBAGENT_SYSTEM_PROMPTS[input.type],
        modelConfigId: selection.modelConfigId ?? undefined,
        reasoningEffort: selection.reasoningEffort ?? undefined,
        labels: { [SUBAGENT_TYPE_LABEL]: input.type },
      });
      if (!created.ok) {
        // A concurrent re-run of this call created it first: the same child.
        const raced = await getChild(pool, chat.id, childId);
        if (raced) return { ...agentWire(raced), model_config_id: raced.modelConfigId, reasoning_effort: raced.reasoningEffort };
      }
      const child = unwrapOutcome(created).chat;
      return {
        agent_id: child.id,
        type: input.type,
        title: child.title,
        status: child.status,
        model_config_id: child.last_model_config_id,
        reasoning_effort: child.last_reasoning_effort,
        model_source: selection.source,
      };
    },
  });

  const wait = defineLocalTool<unknown>({
    name: "wait_agent",
    readOnly: true,
    description:
      "Wait until a subagent is done for now (waiting, error, or needing action) and return its latest answer, " +
      `or until timeout_seconds pass (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}); call again to keep waiting.`,
    inputSchema: {
      type: "object",
      properties: {
        agent_id: agentIdSchema,
        timeout_seconds: { type: "number", exclusiveMinimum: 0, maximum: MAX_WAIT_SECONDS },
      },
      required: ["agent_id"],
      additionalProperties: false,
    },
    async execute(args, context) {
      const input = parseArgs(WaitArgs, args);
      const deadline = deps.now() + (input.timeout_seconds ?? DEFAULT_WAIT_SECONDS) * 1000;
      // Watch first, then read: a report landing between the two is not lost.
      const watch = host.watch([input.agent_id]);
      try {
        for (;;) {
          const child = await ownChild(input.agent_id);
          const timedOut = deps.now() >= deadline;
          if (isSettled(child) || timedOut) {
            const answer = isSettled(child) ? await latestAnswer(pool, child.id) : null;
            return { ...agentWire(child), done: isSettled(child), timed_out: !isSettled(child), ...(answer === null ? {} : { answer }) };
          }
          await watch.next(deadline - deps.now(), context.abortSignal);
        }
      } finally {
        watch.close();
      }
    },
  });

  const message = defineLocalTool<unknown>({
    name: "message_agent",
    description:
      "Send a subagent a follow-up message. It is queued behind the subagent's current work, or with interrupt: true the subagent stops what it is doing and takes this message next.",
    inputSchema: {
      type: "object",
      properties: { agent_id: agentIdSchema, message: { type: "string" }, interrupt: { type: "boolean" } },
      required: ["agent_id", "message"],
      additionalProperties: false,
    },
    async execute(args) {
      const input = parseArgs(MessageArgs, args);
      await ownChild(input.agent_id);
      const sent = unwrapOutcome(
        await host.sendMessage({
          chatId: input.agent_id,
          callerId: chat.ownerId,
          content: [{ type: "text", text: input.message }],
          busyBehavior: input.interrupt ? "interrupt" : "queue",
        }),
      );
      return { agent_id: input.agent_id, queued: sent.queued };
    },
  });

  async function interruptChild(args: unknown) {
    const input = parseArgs(AgentArgs, args);
    const child = await ownChild(input.agent_id);
    if (child.status !== "running" && child.status !== "requires_action")
      return { ...agentWire(child), interrupted: false, note: `nothing to interrupt: the subagent is ${child.status}` };
    const result = await host.interrupt({ chatId: input.agent_id, callerId: chat.ownerId });
    if (!result.ok) {
      // It settled between the read and the request.
      const now = await ownChild(input.agent_id);
      return { ...agentWire(now), interrupted: false, note: result.refusal };
    }
    return { agent_id: input.agent_id, status: result.value.status, interrupted: true };
  }
  const interruptSchema = {
    type: "object",
    properties: { agent_id: agentIdSchema },
    required: ["agent_id"],
    additionalProperties: false,
  } as const;
  const interrupt = defineLocalTool<unknown>({
    name: "interrupt_agent",
    description: "Stop a subagent's current work; what it produced so far is kept. It can be messaged again afterwards.",
    inputSchema: interruptSchema,
    execute: interruptChild,
  });
  const close = defineLocalTool<unknown>({
    name: "close_agent",
    description: "Deprecated: use interrupt_agent (this does the same).",
    inputSchema: interruptSchema,
    execute: interruptChild,
  });

  const list = defineLocalTool<unknown>({
    name: "list_agents",
    readOnly: true,
    description: "List this chat's subagents with their status.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    async execute() {
      return { agents: (await listChildren(pool, chat.id)).map(agentWire) };
    },
  });

  const models = defineLocalTool<unknown>({
    name: "list_subagent_models",
    readOnly: true,
    description: "List the models a subagent may run on (model_config_id for spawn_agent) with their reasoning effort range.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    async execute() {
      const configs = await listModelConfigs(db, chat.organizationId);
      const usable = await Promise.all(
        configs.map(async (config) => {
          try {
            await resolveModelConfig(db, { organizationId: chat.organizationId, modelConfigId: config.id });
            return true;
          } catch {
            return false;
          }
        }),
      );
      return {
        models: configs
          .filter((_, i) => usable[i])
          .map((c) => ({
            model_config_id: c.id,
            model: c.model,
            display_name: c.displayName,
            is_default: c.isDefault,
            ...(c.options.reasoning_effort ? { reasoning_effort: c.options.reasoning_effort } : {}),
          })),
        reasoning_efforts: REASONING_EFFORTS,
      };
    },
  });

  return [spawn, wait, message, interrupt, close, list, models];
}
