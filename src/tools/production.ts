/**
 * The tool families of a deployment, in the order their tools and guidance appear. The next
 * families (subagents, MCP) are added here.
 */
import type { Database } from "../db/database";
import { type ChatTools, chatToolsFactory, type ToolChat } from "./chat-tools";
import { memoryToolFamily } from "./memory";

export function productionToolsFor(deps: { db: Database; now(): Date }): (chat: ToolChat) => Promise<ChatTools> {
  return chatToolsFactory([memoryToolFamily(deps)]);
}
