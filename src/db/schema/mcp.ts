/**
 * MCP servers registered by an organization (docs/mcp.md). Chats name the ones they use in
 * `chats.mcp_server_ids`; the chat's object connects to them when it prepares a turn.
 */
import { sql } from "drizzle-orm";
import { boolean, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./auth";

export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: uuid().primaryKey().defaultRandom(),
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** The Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp */
    url: text().notNull(),
    /** Extra request headers, each value sealed like provider API keys; never returned by the API (names only). */
    headers: jsonb().$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    /** The key id the header values are sealed with; NULL: plaintext from before sealing (docs/hardening.md). */
    headersSealedWith: text(),
    /** Sent as `Authorization: Bearer <token>`; sealed; never returned by the API. */
    bearerToken: text(),
    /** The id of the key bearerToken is sealed with; NULL: plaintext from before sealing. */
    bearerTokenSealedWith: text(),
    enabled: boolean().notNull().default(true),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("mcp_servers_organization_id_name_idx").on(t.organizationId, t.name)],
);

export type McpServerRow = typeof mcpServers.$inferSelect;
