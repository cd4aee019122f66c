/**
 * The per-turn tool registry. Every model step and every tool run assembles the chat's local
 * tools afresh from the chat row (root or subagent, in a project or not) through the same
 * families, so the tools the model is offered are exactly the tools its calls run against: a
 * call to a tool the chat is no longer offered (a memory tool left in the history of a chat whose
 * project was deleted) finds no entry and gets an error result (src/llm/local-tools.ts).
 *
 * A family is one group of tools with one rule for when a chat gets them (memory today; subagent
 * and MCP tools are the next families). Adding one is a new file and an entry in ./production.ts.
 */
import type { McpConnectSummary } from "../mcp/turn-connections";
import type { ChatRow } from "../db/schema/chats";
import { activeRows, type HistoryRow } from "../llm/active-history";
import { type LocalTool, type LocalToolRegistry, localToolRegistry } from "../llm/tools";
import { FIND_TOOLS_NAME, foundToolNames } from "./find-tools";
import { PLAN_MODE_GUIDANCE, planModeRefusal } from "./plan-mode";

/** What a family may look at to decide. */
export type ToolChat = Pick<ChatRow, "id" | "organizationId" | "ownerId" | "parentChatId" | "projectId"> &
  Partial<Pick<ChatRow, "mcpServerIds" | "planMode">>;

/**
 * Decisions that hold for every step of a turn, kept by the chat's runner in memory (spec "Local
 * state"): src/chat-worker/turn-decisions.ts.
 */
export interface TurnDecisions {
  /**
   * Whether the turn `turn` (a prompt's id) searches its MCP tools: the first step that asks
   * decides with `read`, later steps of the turn get the same answer.
   */
  mcpToolSearch(turn: number, read: () => Promise<boolean>): Promise<boolean>;
}

/** The step the tools are assembled for. */
export interface ToolStep {
  /**
   * The turn: the id of its prompt (the last user message that is not model-only), -1 without
   * one. Families that hold resources across the steps of a turn (MCP connections) key them by it.
   */
  turn: number;
  /** The runner's per-turn decisions; without them (tests, tools outside a runner) each step decides alone. */
  decisions?: TurnDecisions | undefined;
  /** The tools find_tools returned in the prompt's history: offered in full (docs/mcp.md#tool-search). */
  foundTools?: ReadonlySet<string> | undefined;
  /** The turn already called find_tools: tool search stays on for it whatever the setting says now. */
  searchedThisTurn?: boolean | undefined;
}

/** The step of a chat whose history is `history`. */
export function toolStepOf(history: readonly HistoryRow[], decisions?: TurnDecisions): ToolStep {
  const active = activeRows(history);
  const promptIndex = active.findLastIndex((row) => row.role === "user" && !row.modelOnly);
  const searchedThisTurn =
    promptIndex >= 0 &&
    active
      .slice(promptIndex + 1)
      .some((row) => row.role === "assistant" && row.content.some((p) => p.type === "tool-call" && p.tool_name === FIND_TOOLS_NAME));
  return {
    turn: promptIndex >= 0 ? active[promptIndex]!.id : -1,
    ...(decisions ? { decisions } : {}),
    foundTools: foundToolNames(history),
    searchedThisTurn,
  };
}

/** Something the client should know about the tools of a step (an MCP server that could not be reached). */
export interface ToolWarning {
  code: string;
  message: string;
}

/** A family's contribution to one turn. */
export interface FamilyTools {
  tools: LocalTool[];
  /**
   * Names among `tools` that run but are not offered to the model yet (MCP tools behind
   * find_tools): a call to one can only come from a model that found it.
   */
  deferred?: readonly string[];
  /** A static block for the system prompt; live data belongs in tool descriptions (it changes). */
  guidance?: string;
  warnings?: ToolWarning[];
  /** Servers this step connected afresh (the spec's mcp_connect stage). */
  mcpConnect?: McpConnectSummary;
}

export interface ToolFamily {
  name: string;
  /** Null: the chat does not get this family's tools. */
  forChat(chat: ToolChat, step?: ToolStep): Promise<FamilyTools | null>;
}

export interface ChatTools {
  registry: LocalToolRegistry;
  /**
   * Tools of the registry not offered to the model: MCP tools behind find_tools, and in plan mode
   * the tools that may write (whose entries refuse to run: ./plan-mode.ts).
   */
  hidden: ReadonlySet<string>;
  /** System prompt blocks of the families offered, in family order. */
  guidance: string[];
  /** Shown to the client in the step's stream (a `warning` part), never to the model. */
  warnings: ToolWarning[];
  mcpConnect?: McpConnectSummary;
}

export const NO_CHAT_TOOLS: ChatTools = { registry: new Map(), hidden: new Set(), guidance: [], warnings: [] };

/** Builds the factory the runner calls once per step (RunnerDeps.toolsFor). */
export function chatToolsFactory(families: readonly ToolFamily[]): (chat: ToolChat, step?: ToolStep) => Promise<ChatTools> {
  return async (chat, step = { turn: -1 }) => {
    const offered = await Promise.all(families.map((family) => family.forChat(chat, step)));
    const tools: LocalTool[] = [];
    const hidden = new Set<string>();
    const guidance: string[] = [];
    const warnings: ToolWarning[] = [];
    let mcpConnect: McpConnectSummary | undefined;
    for (const family of offered) {
      if (!family) continue;
      tools.push(...family.tools);
      for (const name of family.deferred ?? []) hidden.add(name);
      if (family.guidance) guidance.push(family.guidance);
      if (family.warnings) warnings.push(...family.warnings);
      mcpConnect ??= family.mcpConnect;
    }
    // Plan mode: a tool that may write stays in the registry, so a call to it (made before plan
    // mode was switched on) gets a refusal that says why, but it is not offered.
    const runnable = chat.planMode
      ? tools.map((t) => {
          if (t.readOnly) return t;
          hidden.add(t.name);
          return planModeRefusal(t);
        })
      : tools;
    if (chat.planMode) guidance.push(PLAN_MODE_GUIDANCE);
    return { registry: localToolRegistry(runnable), hidden, guidance, warnings, ...(mcpConnect ? { mcpConnect } : {}) };
  };
}
