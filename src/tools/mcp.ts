/**
 * MCP tools (docs/mcp.md): the tools of the chat's MCP servers (`chats.mcp_server_ids`), offered
 * as `<server>__<tool>` (src/mcp/tool-names.ts) and run as local tools. The servers are connected
 * once per turn by the object's McpTurnConnections; a server that is missing, disabled or does not
 * connect is skipped with a warning for the client, and the turn goes on without its tools. A call
 * that fails, or an `isError` result, is an error tool result.
 *
 * With tool search on for the turn (docs/mcp.md#tool-search), the step is offered `find_tools`
 * instead of every schema: the MCP tools stay in the registry but are deferred, except those a
 * find_tools result in the prompt named. The turn's runner decides once, on its first step with MCP
 * candidates; a step without any never reads the setting.
 */
import type { JSONSchema7 } from "ai";
import type { Database } from "../db/database";
import { mcpServersByIds } from "../mcp/servers";
import { defineLocalTool, type LocalTool } from "../llm/tools";
import { logger } from "../log/log";
import type { McpSession, McpToolInfo } from "../mcp/session";
import { assignToolNames } from "../mcp/tool-names";
import { toolResultFor } from "../mcp/tool-result";
import type { McpTurnConnections } from "../mcp/turn-connections";
import { mcpToolSearchEnabled } from "../mcp/tool-search-setting";
import type { FamilyTools, ToolChat, ToolFamily, ToolStep, ToolWarning } from "./chat-tools";
import { FIND_TOOLS_NAME, findToolsTool } from "./find-tools";

export interface McpToolDeps {
  db: Database;
  connections: McpTurnConnections;
  /** CHAT_MCP_TOOL_OUTPUT_MAX_BYTES: a result past it is cut (src/mcp/tool-result.ts). */
  toolOutputMaxBytes: number;
}

export const MCP_WARNING = {
  connectFailed: "mcp_connect_failed",
  unavailable: "mcp_server_unavailable",
} as const;

export function mcpToolFamily(deps: McpToolDeps): ToolFamily {
  return {
    name: "mcp",
    async forChat(chat, step) {
      const ids = chat.mcpServerIds ?? [];
      if (ids.length === 0) return null;
      const rows = await mcpServersByIds(deps.db, chat.organizationId, ids);
      const warnings: ToolWarning[] = [];
      const found = new Set(rows.map((r) => r.id));
      for (const id of ids) {
        if (!found.has(id)) warnings.push({ code: MCP_WARNING.unavailable, message: `MCP server ${id} no longer exists; skipped` });
      }
      for (const row of rows) {
        if (!row.enabled) warnings.push({ code: MCP_WARNING.unavailable, message: `MCP server "${row.name}" is disabled; skipped` });
      }
      const turn = step?.turn ?? -1;
      const sessions = await deps.connections.forTurn(
        turn,
        rows.filter((r) => r.enabled),
      );
      // A step of an older turn: it is stale, it gets no MCP tools.
      if (sessions === null) return { tools: [], warnings };
      if (sessions.connect) {
        // The spec's mcp_connect stage; "errored only when none connected".
        const { connected, failed, ms } = sessions.connect;
        logger.info("mcp_connect", { chat_id: chat.id, turn, connected, failed, ms, errored: connected === 0 });
      }
      const live: McpSession[] = [];
      for (const outcome of sessions.outcomes) {
        if (outcome.ok) live.push(outcome.session);
        else
          warnings.push({
            code: MCP_WARNING.connectFailed,
            message: `MCP server "${outcome.serverName}" could not be reached (${outcome.reason}); its tools are skipped`,
          });
      }
      const tools = mcpLocalTools(live, deps.toolOutputMaxBytes);
      const offered = tools.length === 0 ? { tools } : await withToolSearch(deps, chat, step, live, tools);
      return { ...offered, warnings, ...(sessions.connect ? { mcpConnect: sessions.connect } : {}) };
    },
  };
}

/**
 * The step's MCP tools as offered: all of them, or (tool search on for the turn) find_tools with
 * every tool deferred but those found. A turn that already called find_tools keeps it whatever the
 * setting says now (a new runner after a handoff decides again, and must not withdraw it).
 */
async function withToolSearch(
  deps: McpToolDeps,
  chat: ToolChat,
  step: ToolStep | undefined,
  live: readonly McpSession[],
  tools: LocalTool[],
): Promise<Pick<FamilyTools, "tools" | "deferred">> {
  const read = () => mcpToolSearchEnabled(deps.db, chat);
  const turn = step?.turn ?? -1;
  const search = step?.searchedThisTurn || (await (step?.decisions ? step.decisions.mcpToolSearch(turn, read) : read()));
  if (!search) return { tools };
  return searchOffer(live, tools, step?.foundTools ?? new Set<string>());
}

/** find_tools over the sessions' tools, which are all deferred but those `found`. */
export function searchOffer(
  live: readonly McpSession[],
  tools: readonly LocalTool[],
  found: ReadonlySet<string>,
): Pick<FamilyTools, "tools" | "deferred"> {
  // The servers' own descriptions (mcpLocalTools lists the sessions' tools in this same order).
  const descriptions = live.flatMap((s) => s.tools.map((t) => t.description ?? ""));
  const catalog = tools.map((t, i) => ({ name: t.name, description: descriptions[i] ?? "" }));
  const finder = findToolsTool(
    catalog,
    live.map((s) => s.serverName),
  );
  // A server tool that sanitizes to "find_tools" would collide: the search wins, that tool is not offered.
  const runnable = tools.filter((t) => t.name !== FIND_TOOLS_NAME);
  return { tools: [finder, ...runnable], deferred: runnable.filter((t) => !found.has(t.name)).map((t) => t.name) };
}

/** The sessions' tools as local tools, under the names they are offered as. */
export function mcpLocalTools(sessions: readonly McpSession[], maxBytes: number): LocalTool[] {
  const entries = sessions.flatMap((session) => session.tools.map((tool) => ({ session, tool })));
  const names = assignToolNames(entries.map((e) => ({ server: e.session.serverName, tool: e.tool.name })));
  return entries.map(({ session, tool }, i) => mcpTool(names[i]!, session, tool, maxBytes));
}

function mcpTool(name: string, session: McpSession, tool: McpToolInfo, maxBytes: number): LocalTool {
  const description = `Tool "${tool.name}" of the MCP server "${session.serverName}".${tool.description ? `\n\n${tool.description}` : ""}`;
  return defineLocalTool<unknown>({
    name,
    description,
    inputSchema: { type: "object", ...tool.inputSchema } as JSONSchema7,
    // MCP's annotation is a hint from the server; without it a tool is taken to write.
    readOnly: tool.readOnlyHint === true,
    async execute(args, context) {
      return toolResultFor(await session.callTool(tool.name, args, context.abortSignal), maxBytes);
    },
  });
}
