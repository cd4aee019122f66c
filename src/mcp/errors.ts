/**
 * A chat names MCP servers it cannot use: unknown, of another organization, or disabled (400,
 * field `mcp_server_ids`: the fix is the body the client sends). One message for all three, so a
 * caller learns nothing about other organizations' servers.
 */
export class McpServerUnavailableError extends Error {
  override name = "McpServerUnavailableError";
  readonly code = "mcp_server_unavailable";
  constructor(readonly serverIds: readonly string[]) {
    super(`MCP server ${serverIds.join(", ")} does not exist in this organization or is disabled`);
  }
}
