/**
 * The tool families of a deployment, in the order their tools and guidance appear. The MCP and
 * subagent families need what only the chat's object has (its MCP connections of the turn, the
 * runtime that reaches other chats' objects); without them (database tests) they are left out.
 */
import type { Database } from "../db/database";
import type { Queryable } from "../db/rows";
import type { McpTurnConnections } from "../mcp/turn-connections";
import type { SubagentHost } from "../subagents/host";
import { type ChatTools, chatToolsFactory, type ToolChat, type ToolFamily, type ToolStep } from "./chat-tools";
import { mcpToolFamily } from "./mcp";
import { memoryToolFamily } from "./memory";
import { subagentToolFamily } from "./subagents";
import type { SubagentQuotas } from "../subagents/quotas";

export function productionToolsFor(deps: {
  db: Database;
  now(): Date;
  /**
   * The chat object's MCP connections of the turn in progress, and the most bytes of a tool's
   * output the model reads; without them, no MCP tools.
   */
  mcp?: { connections: McpTurnConnections; toolOutputMaxBytes: number };
  subagents?: { host: SubagentHost; pool: Queryable; quotas: SubagentQuotas };
}): (chat: ToolChat, step?: ToolStep) => Promise<ChatTools> {
  const families: ToolFamily[] = [memoryToolFamily(deps)];
  if (deps.subagents) families.push(subagentToolFamily({ db: deps.db, ...deps.subagents, now: () => deps.now().getTime() }));
  if (deps.mcp) families.push(mcpToolFamily({ db: deps.db, ...deps.mcp }));
  return chatToolsFactory(families);
}
