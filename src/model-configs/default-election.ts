/**
 * The exactly-one-default invariant (spec "Model configuration write serialization"). Only called
 * under the organization's write lock. The partial unique index allows at most one live default,
 * so the old default is always unset before a new one is set.
 */
import { and, asc, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { chatModelConfigs, chatProviders } from "../db/schema/models";

const live = (organizationId: string) => and(eq(chatModelConfigs.organizationId, organizationId), isNull(chatModelConfigs.deletedAt));

/** Unsets whatever live default the organization has. */
export async function clearDefault(tx: Database, organizationId: string, now: Date): Promise<void> {
  await tx
    .update(chatModelConfigs)
    .set({ isDefault: false, updatedAt: now })
    .where(and(live(organizationId), eq(chatModelConfigs.isDefault, true)));
}

/** Makes `id` the default: the old default is unset first. */
export async function makeDefault(tx: Database, organizationId: string, id: string, now: Date): Promise<void> {
  await tx
    .update(chatModelConfigs)
    .set({ isDefault: false, updatedAt: now })
    .where(and(live(organizationId), eq(chatModelConfigs.isDefault, true), ne(chatModelConfigs.id, id)));
  await tx.update(chatModelConfigs).set({ isDefault: true, updatedAt: now }).where(eq(chatModelConfigs.id, id));
}

/**
 * When the organization has live configs but no default, elects one: an enabled config whose
 * provider is enabled first, then any live config; oldest first within each. `avoid` (a config
 * just demoted) is chosen only when it is the only live config, which re-promotes it.
 */
export async function ensureDefault(tx: Database, organizationId: string, now: Date, avoid?: string): Promise<void> {
  const [current] = await tx
    .select({ id: chatModelConfigs.id })
    .from(chatModelConfigs)
    .where(and(live(organizationId), eq(chatModelConfigs.isDefault, true)))
    .limit(1);
  if (current) return;
  const [candidate] = await tx
    .select({ id: chatModelConfigs.id })
    .from(chatModelConfigs)
    .innerJoin(chatProviders, eq(chatProviders.id, chatModelConfigs.providerId))
    .where(live(organizationId))
    .orderBy(
      // false sorts first: the avoided config comes last.
      ...(avoid === undefined ? [] : [sql`${chatModelConfigs.id} = ${avoid}`]),
      desc(sql`${chatModelConfigs.enabled} AND ${chatProviders.enabled}`),
      asc(chatModelConfigs.createdAt),
      asc(chatModelConfigs.id),
    )
    .limit(1);
  if (candidate) await makeDefault(tx, organizationId, candidate.id, now);
}
