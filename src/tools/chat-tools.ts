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

/** What a family may look at to decide. */
export type ToolChat = Pick<ChatRow, "id" | "organizationId" | "ownerId" | "parentChatId" | "projectId"> &
  Partial<Pick<ChatRow, "mcpServerIds">>;

/** The step the tools are assembled for. */
export interface ToolStep {
  /**
   * The turn: the seq of its prompt (the last user message that is not model-only), -1 without
   * one. Families that hold resources across the steps of a turn (MCP connections) key them by it.
   */
  turn: number;
}

/** The step of a chat whose history is `history`. */
export function toolStepOf(history: readonly HistoryRow[]): ToolStep {
  const prompt = activeRows(history).findLast((row) => row.role === "user" && !row.modelOnly);
  return { turn: prompt?.seq ?? -1 };
}

/** Something the client should know about the tools of a step (an MCP server that could not be reached). */
export interface ToolWarning {
  code: string;
  message: string;
}

/** A family's contribution to one turn. */
export interface FamilyTools {
  tools: LocalTool[];
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
  /** System prompt blocks of the families offered, in family order. */
  guidance: string[];
  /** Shown to the client in the step's stream (a `warning` part), never to the model. */
  warnings: ToolWarning[];
  mcpConnect?: McpConnectSummary;
}

export const NO_CHAT_TOOLS: ChatTools = { registry: new Map(), guidance: [], warnings: [] };

/** Builds the factory the runner calls once per step (RunnerDeps.toolsFor). */
export function chatToolsFactory(families: readonly ToolFamily[]): (chat: ToolChat, step?: ToolStep) => Promise<ChatTools> {
  return async (chat, step = { turn: -1 }) => {
    const offered = await Promise.all(families.map((family) => family.forChat(chat, step)));
    const tools: LocalTool[] = [];
    const guidance: string[] = [];
    const warnings: ToolWarning[] = [];
    let mcpConnect: McpConnectSummary | undefined;
    for (const family of offered) {
      if (!family) continue;
      tools.push(...family.tools);
      if (family.guidance) guidance.push(family.guidance);
      if (family.warnings) warnings.push(...family.warnings);
      mcpConnect ??= family.mcpConnect;
    }
    return { registry: localToolRegistry(tools), guidance, warnings, ...(mcpConnect ? { mcpConnect } : {}) };
  };
}
