/**
 * Personal subagent model overrides (migrations/0007_subagents.sql): one row per (user,
 * organization, subagent context). The organization's own overrides are in ./compaction.ts.
 */
import { sql } from "drizzle-orm";
import { check, foreignKey, index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations, users } from "./auth";
import { chatModelConfigs } from "./models";

export const SUBAGENT_CONTEXTS = ["general", "explore"] as const;
export type SubagentContext = (typeof SUBAGENT_CONTEXTS)[number];

/** chat_default: keep the type default; model: this row's model; deployment_default: defer to the organization. */
export const PERSONAL_OVERRIDE_MODES = ["chat_default", "model", "deployment_default"] as const;
export type PersonalOverrideMode = (typeof PERSONAL_OVERRIDE_MODES)[number];

export const chatUserModelOverrides = pgTable(
  "chat_user_model_overrides",
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    context: text().$type<SubagentContext>().notNull(),
    mode: text().$type<PersonalOverrideMode>().notNull(),
    modelConfigId: uuid(),
    reasoningEffort: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "chat_user_model_overrides_pk", columns: [t.userId, t.organizationId, t.context] }),
    check("chat_user_model_overrides_context_check", sql`${t.context} IN ('general', 'explore')`),
    check("chat_user_model_overrides_mode_check", sql`${t.mode} IN ('chat_default', 'model', 'deployment_default')`),
    check("chat_user_model_overrides_model_check", sql`(${t.mode} = 'model') = (${t.modelConfigId} IS NOT NULL)`),
    check(
      "chat_user_model_overrides_effort_check",
      sql`${t.reasoningEffort} IS NULL OR (${t.mode} = 'model' AND ${t.reasoningEffort} IN ('none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'))`,
    ),
    foreignKey({
      name: "chat_user_model_overrides_config_fk",
      columns: [t.organizationId, t.modelConfigId],
      foreignColumns: [chatModelConfigs.organizationId, chatModelConfigs.id],
    }).onDelete("cascade"),
    // Deleting a config cascades through this foreign key: its rows are found by index.
    index("chat_user_model_overrides_config_idx").on(t.organizationId, t.modelConfigId),
  ],
);

export type ChatUserModelOverrideRow = typeof chatUserModelOverrides.$inferSelect;
