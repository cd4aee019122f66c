/**
 * Deployment-scoped providers and organization-scoped model configs (spec: "Organization-scoped
 * model discovery", "Model configuration write serialization").
 */
import { sql } from "drizzle-orm";
import { boolean, integer, jsonb, pgTable, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./auth";

export const chatProviders = pgTable("chat_providers", {
  id: uuid().primaryKey().defaultRandom(),
  /** "openai" | "anthropic" | "openai-compatible" */
  type: text().notNull(),
  name: text().notNull().unique(),
  baseUrl: text(),
  /** Never returned by the API. Sealed (src/model-configs/provider-secrets.ts), unless written before migration 0015. */
  apiKey: text(),
  /** The id of the key apiKey is sealed with; NULL: plaintext from before sealing (docs/hardening.md). */
  apiKeySealedWith: text(),
  enabled: boolean().notNull().default(true),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const chatModelConfigs = pgTable(
  "chat_model_configs",
  {
    id: uuid().primaryKey().defaultRandom(),
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    providerId: uuid()
      .notNull()
      .references(() => chatProviders.id, { onDelete: "restrict" }),
    model: text().notNull(),
    displayName: text(),
    enabled: boolean().notNull().default(true),
    isDefault: boolean().notNull().default(false),
    contextLimit: integer(),
    compressionThreshold: integer(),
    /** {reasoning_effort?: {default, max}, openai_config?: {use_responses_api?}, provider_options?} */
    options: jsonb().notNull().default(sql`'{}'::jsonb`),
    deletedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // At most one live default per organization; the locked write logic keeps exactly one.
    uniqueIndex("chat_model_configs_one_default_idx").on(t.organizationId).where(sql`${t.isDefault} AND ${t.deletedAt} IS NULL`),
    // The target of composite foreign keys that bind a config to its organization (model overrides).
    unique("chat_model_configs_organization_id_id_unique").on(t.organizationId, t.id),
  ],
);
