/**
 * Organization model overrides (spec "Compaction model selection"): one row per (organization,
 * context) naming a model config of the same organization. The composite foreign key
 * (organization_id, model_config_id) → chat_model_configs(organization_id, id) makes a
 * cross-organization reference unstorable; the write also checks the config is usable now.
 * Whether it is still usable later is the reader's business (the runner falls back).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { ModelConfigUnavailableError } from "./errors";
import { resolveModelConfig } from "./resolve";
import { isForeignKeyViolation } from "../db/pg-errors";
import { type ChatOrganizationModelOverrideRow, chatOrganizationModelOverrides, type ModelOverrideContext } from "../db/schema/compaction";

export async function getModelOverride(
  db: Database,
  organizationId: string,
  context: ModelOverrideContext,
): Promise<ChatOrganizationModelOverrideRow | null> {
  const [row] = await db
    .select()
    .from(chatOrganizationModelOverrides)
    .where(and(eq(chatOrganizationModelOverrides.organizationId, organizationId), eq(chatOrganizationModelOverrides.context, context)));
  return row ?? null;
}

/** Throws ModelConfigUnavailableError for a config this organization cannot use (missing, foreign, deleted, disabled). */
export async function setModelOverride(
  db: Database,
  organizationId: string,
  context: ModelOverrideContext,
  modelConfigId: string,
): Promise<ChatOrganizationModelOverrideRow> {
  await resolveModelConfig(db, { organizationId, modelConfigId });
  try {
    const [row] = await db
      .insert(chatOrganizationModelOverrides)
      .values({ organizationId, context, modelConfigId })
      .onConflictDoUpdate({
        target: [chatOrganizationModelOverrides.organizationId, chatOrganizationModelOverrides.context],
        set: { modelConfigId, updatedAt: sql`now()` },
      })
      .returning();
    if (!row) throw new Error("the override upsert returned no row");
    return row;
  } catch (err) {
    // The config went away between the check and the write.
    if (isForeignKeyViolation(err)) throw new ModelConfigUnavailableError(modelConfigId, "not_found");
    throw err;
  }
}

/** True when a row was deleted. */
export async function deleteModelOverride(db: Database, organizationId: string, context: ModelOverrideContext): Promise<boolean> {
  const rows = await db
    .delete(chatOrganizationModelOverrides)
    .where(and(eq(chatOrganizationModelOverrides.organizationId, organizationId), eq(chatOrganizationModelOverrides.context, context)))
    .returning({ context: chatOrganizationModelOverrides.context });
  return rows.length > 0;
}
