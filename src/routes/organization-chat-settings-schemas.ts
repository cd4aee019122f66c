/** The wire shape of an organization's chat settings (`/organizations/{organization}/chats/settings`). */
import { z } from "@hono/zod-openapi";

const mcpToolSearch = z.boolean().openapi({
  description:
    "MCP tool search for the organization's chats: their model gets find_tools instead of every MCP tool's schema. A member's own preference (chat-preferences mcp_tool_search) wins over it.",
  example: true,
});

export const OrganizationChatSettingsSchema = z.object({ mcp_tool_search: mcpToolSearch }).openapi("OrganizationChatSettings");
export const UpdateOrganizationChatSettingsBody = z
  .strictObject({ mcp_tool_search: mcpToolSearch })
  .openapi("UpdateOrganizationChatSettingsRequest");
