/**
 * The tool families of a deployment, in the order their tools and guidance appear. The subagent
 * family needs the runtime that reaches other chats' objects (the ChatObject passes it); without
 * one (database tests) it is left out.
 */
import type { Database } from "../db/database";
import type { Queryable } from "../db/rows";
import type { SubagentHost } from "../subagents/host";
import { type ChatTools, chatToolsFactory, type ToolChat, type ToolFamily } from "./chat-tools";
import { memoryToolFamily } from "./memory";
import { subagentToolFamily } from "./subagents";

export function productionToolsFor(deps: {
  db: Database;
  now(): Date;
  subagents?: { host: SubagentHost; pool: Queryable };
}): (chat: ToolChat) => Promise<ChatTools> {
  const families: ToolFamily[] = [memoryToolFamily(deps)];
  if (deps.subagents) families.push(subagentToolFamily({ db: deps.db, ...deps.subagents, now: () => deps.now().getTime() }));
  return chatToolsFactory(families);
}
