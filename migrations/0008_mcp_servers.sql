-- MCP servers an organization registers for its chats (docs/mcp.md), and the servers each chat uses.

CREATE TABLE "mcp_servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	-- Sent with every request to the server; never returned by the API (only the header names are).
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	-- Sent as `Authorization: Bearer <token>`; never returned by the API (`has_bearer_token`).
	"bearer_token" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_servers_organization_id_name_idx" ON "mcp_servers" USING btree ("organization_id","name");--> statement-breakpoint

-- The chat's MCP servers, a JSON array of server IDs checked on create and update (same
-- organization, enabled). A server deleted later stays listed and is skipped at preparation.
ALTER TABLE "chats" ADD COLUMN "mcp_server_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;
