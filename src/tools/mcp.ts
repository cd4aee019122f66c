/**
 * MCP tools (docs/mcp.md): the tools of the chat's MCP servers (`chats.mcp_server_ids`), offered
 * as `<server>__<tool>` (src/mcp/tool-names.ts) and run as local tools. The servers are connected
 * once per turn by the object's McpTurnConnections; a server that is missing, disabled or does not
 * connect is skipped with a warning for the client, and the turn goes on without its tools. A call
 * that fails, or an `isError` result, is an error tool result.
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
import type { ToolFamily, ToolWarning } from "./chat-tools";

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
      return { tools: toolsOf(live, deps.toolOutputMaxBytes), warnings, ...(sessions.connect ? { mcpConnect: sessions.connect } : {}) };
    },
  };
}

function toolsOf(sessions: readonly McpSession[], maxBytes: number): LocalTool[] {
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
    async execute(args, context) {
      return toolResultFor(await session.callTool(tool.name, args, context.abortSignal), maxBytes);
    },
  });
}
