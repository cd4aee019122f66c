-- Plan mode (docs/plan-mode.md): a chat's flag, metadata that no transition moves.
-- MCP tool search (docs/mcp.md#tool-search): an organization's setting and the user's own choice
-- (null: follow the organization).
ALTER TABLE "organizations" ADD COLUMN "mcp_tool_search" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "plan_mode" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_user_preferences" ADD COLUMN "mcp_tool_search" boolean;
