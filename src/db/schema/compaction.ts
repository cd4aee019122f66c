/**
 * What compaction reads besides the history: the owner's personal threshold and the
 * organization's model overrides (migrations/0006_compaction.sql).
 */
import { sql } from "drizzle-orm";
import { boolean, check, foreignKey, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations, users } from "./auth";
import { chatModelConfigs } from "./models";

/** Per-user chat preferences; a missing row means every preference is unset. */
export const chatUserPreferences = pgTable(
  "chat_user_preferences",
  {
    userId: uuid()
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The owner's compaction threshold (percent of the chat model's window); null: the model's own. */
    compactionThresholdPercent: integer(),
    /** MCP tool search for the user's chats (docs/mcp.md#tool-search); null: the organization's setting. */
    mcpToolSearch: boolean(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("chat_user_preferences_compaction_threshold_percent_check", sql`${t.compactionThresholdPercent} BETWEEN 0 AND 100`)],
);

/** Where an organization can replace the chat model: compaction now, subagent kinds later. */
export const MODEL_OVERRIDE_CONTEXTS = ["compaction", "general", "explore"] as const;
export type ModelOverrideContext = (typeof MODEL_OVERRIDE_CONTEXTS)[number];

export const chatOrganizationModelOverrides = pgTable(
  "chat_organization_model_overrides",
  {
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    context: text().$type<ModelOverrideContext>().notNull(),
    modelConfigId: uuid().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.context] }),
    check("chat_organization_model_overrides_context_check", sql`${t.context} IN ('compaction', 'general', 'explore')`),
    // Composite: the config must belong to the override's organization.
    foreignKey({
      name: "chat_organization_model_overrides_config_fk",
      columns: [t.organizationId, t.modelConfigId],
      foreignColumns: [chatModelConfigs.organizationId, chatModelConfigs.id],
    }).onDelete("cascade"),
  ],
);

export type ChatOrganizationModelOverrideRow = typeof chatOrganizationModelOverrides.$inferSelect;
