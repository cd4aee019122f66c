/**
 * The tool families of a deployment, in the order their tools and guidance appear. The next
 * families (subagents) are added here.
 */
import type { Database } from "../db/database";
import type { McpTurnConnections } from "../mcp/turn-connections";
import { type ChatTools, chatToolsFactory, type ToolChat, type ToolStep } from "./chat-tools";
import { mcpToolFamily } from "./mcp";
import { memoryToolFamily } from "./memory";

export function productionToolsFor(deps: {
  db: Database;
  now(): Date;
  /** The chat object's MCP connections of the turn in progress; without them, no MCP tools. */
  mcp?: McpTurnConnections;
}): (chat: ToolChat, step?: ToolStep) => Promise<ChatTools> {
  const mcp = deps.mcp ? [mcpToolFamily({ db: deps.db, connections: deps.mcp })] : [];
  return chatToolsFactory([memoryToolFamily(deps), ...mcp]);
}
