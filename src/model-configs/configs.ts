/**
 * Organization-scoped model configs. Reads see live (not deleted) rows only; every write goes
 * through inModelConfigWriteTx and leaves exactly one default whenever a live config exists.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/database";
import { isForeignKeyViolation } from "../db/pg-errors";
import { chatModelConfigs, chatProviders } from "../db/schema/models";
import { clearDefault, ensureDefault, makeDefault } from "./default-election";
import { UnknownProviderError } from "./errors";
import type { ModelConfigOptions } from "./options";
import { type ModelPricing, priceColumns } from "./pricing";
import { inModelConfigWriteTx } from "./write-tx";

export type ModelConfigRow = Omit<typeof chatModelConfigs.$inferSelect, "options"> & { options: ModelConfigOptions };

export interface NewModelConfig {
  providerId: string;
  model: string;
  displayName?: string | undefined;
  enabled?: boolean | undefined;
  isDefault?: boolean | undefined;
  contextLimit?: number | null | undefined;
  compressionThreshold?: number | null | undefined;
  options?: ModelConfigOptions | undefined;
  /** Null or absent: unpriced (docs/usage-cost.md). */
  pricing?: ModelPricing | null | undefined;
}

/** Fields present are changed; null clears the nullable limits and the prices. */
export type ModelConfigPatch = Partial<NewModelConfig>;

const liveIn = (organizationId: string) => and(eq(chatModelConfigs.organizationId, organizationId), isNull(chatModelConfigs.deletedAt));

function asRow(row: typeof chatModelConfigs.$inferSelect): ModelConfigRow {
  return { ...row, options: row.options as ModelConfigOptions };
}

export async function listModelConfigs(db: Database, organizationId: string): Promise<ModelConfigRow[]> {
  const rows = await db
    .select()
    .from(chatModelConfigs)
    .where(liveIn(organizationId))
    .orderBy(asc(chatModelConfigs.createdAt), asc(chatModelConfigs.id));
  return rows.map(asRow);
}

/** A live config of this organization; null for another organization's, a deleted or a missing one. */
export async function getModelConfig(db: Database, organizationId: string, id: string): Promise<ModelConfigRow | null> {
  const [row] = await db
    .select()
    .from(chatModelConfigs)
    .where(and(liveIn(organizationId), eq(chatModelConfigs.id, id)));
  return row ? asRow(row) : null;
}

async function requireProvider(tx: Database, providerId: string): Promise<void> {
  const [provider] = await tx.select({ id: chatProviders.id }).from(chatProviders).where(eq(chatProviders.id, providerId));
  if (!provider) throw new UnknownProviderError(providerId);
}

/** Re-reads inside the transaction: the row as committed, default flag included. */
async function reread(tx: Database, organizationId: string, id: string): Promise<ModelConfigRow> {
  const row = await getModelConfig(tx, organizationId, id);
  if (!row) throw new Error(`model config ${id} vanished inside its own write transaction`);
  return row;
}

export async function createModelConfig(db: Database, organizationId: string, input: NewModelConfig, now: Date): Promise<ModelConfigRow> {
  try {
    return await inModelConfigWriteTx(db, organizationId, async (tx) => {
      await requireProvider(tx, input.providerId);
      if (input.isDefault) await clearDefault(tx, organizationId, now);
      const [created] = await tx
        .insert(chatModelConfigs)
        .values({
          organizationId,
          providerId: input.providerId,
          model: input.model,
          displayName: input.displayName ?? input.model,
          enabled: input.enabled ?? true,
          isDefault: input.isDefault ?? false,
          contextLimit: input.contextLimit ?? null,
          compressionThreshold: input.compressionThreshold ?? null,
          options: input.options ?? {},
          ...priceColumns(input.pricing ?? null),
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: chatModelConfigs.id });
      if (!created) throw new Error("insert into chat_model_configs returned no row");
      // The organization's first config promotes itself.
      await ensureDefault(tx, organizationId, now);
      return reread(tx, organizationId, created.id);
    });
  } catch (err) {
    // The provider was deleted between our check and the insert.
    if (isForeignKeyViolation(err)) throw new UnknownProviderError(input.providerId);
    throw err;
  }
}

/** Null when the config is not a live one of this organization. */
export async function updateModelConfig(
  db: Database,
  organizationId: string,
  id: string,
  patch: ModelConfigPatch,
  now: Date,
): Promise<ModelConfigRow | null> {
  try {
    return await inModelConfigWriteTx(db, organizationId, async (tx) => {
      const current = await getModelConfig(tx, organizationId, id);
      if (!current) return null;
      if (patch.providerId !== undefined && patch.providerId !== current.providerId) await requireProvider(tx, patch.providerId);
      const set: Partial<typeof chatModelConfigs.$inferInsert> = { updatedAt: now };
      if (patch.providerId !== undefined) set.providerId = patch.providerId;
      if (patch.model !== undefined) set.model = patch.model;
      if (patch.displayName !== undefined) set.displayName = patch.displayName;
      if (patch.enabled !== undefined) set.enabled = patch.enabled;
      if (patch.contextLimit !== undefined) set.contextLimit = patch.contextLimit;
      if (patch.compressionThreshold !== undefined) set.compressionThreshold = patch.compressionThreshold;
      if (patch.options !== undefined) set.options = patch.options;
      // Prices are replaced whole: a step already committed keeps the cost it was priced at.
      if (patch.pricing !== undefined) Object.assign(set, priceColumns(patch.pricing));
      await tx.update(chatModelConfigs).set(set).where(eq(chatModelConfigs.id, id));

      if (patch.isDefault === true && !current.isDefault) await makeDefault(tx, organizationId, id, now);
      if (patch.isDefault === false && current.isDefault) {
        await tx.update(chatModelConfigs).set({ isDefault: false }).where(eq(chatModelConfigs.id, id));
        // Elect another; when this is the only live config it is promoted again.
        await ensureDefault(tx, organizationId, now, id);
      }
      return reread(tx, organizationId, id);
    });
  } catch (err) {
    if (isForeignKeyViolation(err) && patch.providerId !== undefined) throw new UnknownProviderError(patch.providerId);
    throw err;
  }
}

/** Soft delete (chats and messages keep pointing at the ID); elects a new default if needed. */
export async function deleteModelConfig(db: Database, organizationId: string, id: string, now: Date): Promise<boolean> {
  return inModelConfigWriteTx(db, organizationId, async (tx) => {
    const current = await getModelConfig(tx, organizationId, id);
    if (!current) return false;
    await tx.update(chatModelConfigs).set({ deletedAt: now, isDefault: false, updatedAt: now }).where(eq(chatModelConfigs.id, id));
    await ensureDefault(tx, organizationId, now);
    return true;
  });
}
