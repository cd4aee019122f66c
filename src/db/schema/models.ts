/**
 * Deployment-scoped providers and organization-scoped model configs (spec: "Organization-scoped
 * model discovery", "Model configuration write serialization").
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, check, integer, jsonb, pgTable, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
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
    // Prices in micro-dollars per million tokens (src/model-configs/pricing.ts): integers, so a
    // step's cost is exact. Input and output are both set or both null (unpriced); cached input
    // and reasoning default to the input and output price.
    inputPriceMicros: bigint({ mode: "number" }),
    outputPriceMicros: bigint({ mode: "number" }),
    cachedInputPriceMicros: bigint({ mode: "number" }),
    reasoningPriceMicros: bigint({ mode: "number" }),
    deletedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // At most one live default per organization; the locked write logic keeps exactly one.
    uniqueIndex("chat_model_configs_one_default_idx").on(t.organizationId).where(sql`${t.isDefault} AND ${t.deletedAt} IS NULL`),
    // The target of composite foreign keys that bind a config to its organization (model overrides).
    unique("chat_model_configs_organization_id_id_unique").on(t.organizationId, t.id),
    // Priced means input and output; cached input and reasoning only beside them; each at most $10,000 per million.
    check("chat_model_configs_priced_check", sql`(${t.inputPriceMicros} IS NULL) = (${t.outputPriceMicros} IS NULL)`),
    check(
      "chat_model_configs_price_extras_check",
      sql`${t.inputPriceMicros} IS NOT NULL OR (${t.cachedInputPriceMicros} IS NULL AND ${t.reasoningPriceMicros} IS NULL)`,
    ),
    check("chat_model_configs_input_price_check", sql`${t.inputPriceMicros} BETWEEN 0 AND 10000000000`),
    check("chat_model_configs_output_price_check", sql`${t.outputPriceMicros} BETWEEN 0 AND 10000000000`),
    check("chat_model_configs_cached_input_price_check", sql`${t.cachedInputPriceMicros} BETWEEN 0 AND 10000000000`),
    check("chat_model_configs_reasoning_price_check", sql`${t.reasoningPriceMicros} BETWEEN 0 AND 10000000000`),
  ],
);
