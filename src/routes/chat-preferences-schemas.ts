/** The wire shape of the caller's chat preferences (`/users/me/chat-preferences`), for the route and the SDK. */
import { z } from "@hono/zod-openapi";

const threshold = z
  .number()
  .int()
  .min(0)
  .max(100)
  .nullable()
  .openapi({ description: "Percent of the chat model's context window at which chats compact; null: the model's own", example: 70 });

const mcpToolSearch = z.boolean().nullable().openapi({
  description:
    "MCP tool search for your chats: their model gets find_tools instead of every MCP tool's schema; null: your organization's setting",
  example: true,
});

export const ChatPreferencesSchema = z
  .object({ compaction_threshold_percent: threshold, mcp_tool_search: mcpToolSearch })
  .openapi("ChatPreferences");
/** `mcp_tool_search` left out keeps its stored value (it came after the threshold; older clients do not send it). */
export const UpdateChatPreferencesBody = z
  .strictObject({ compaction_threshold_percent: threshold, mcp_tool_search: mcpToolSearch.optional() })
  .openapi("UpdateChatPreferencesRequest");
