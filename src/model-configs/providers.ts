/**
 * Deployment-scoped LLM providers. The API key is stored sealed for the runner (provider-secrets.ts)
 * and never leaves through the API (the routes project `has_api_key`). Availability is decided
 * here, once, for every reader.
 */
import { and, asc, eq, isNotNull, isNull } from "drizzle-orm";
import { AlreadyExistsError } from "../accounts/errors";
import { type Database, READ_COMMITTED } from "../db/database";
import { isForeignKeyViolation, isUniqueViolation } from "../db/pg-errors";
import { chatModelConfigs, chatProviders } from "../db/schema/models";
import type { KeyRing } from "../secrets/key-ring";
import { ProviderInUseError } from "./errors";
import { sealedApiKey } from "./provider-secrets";

export const PROVIDER_TYPES = ["openai", "anthropic", "openai-compatible"] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
export type ProviderRow = typeof chatProviders.$inferSelect;

export interface NewProvider {
  type: ProviderType;
  name: string;
  baseUrl?: string | null | undefined;
  apiKey?: string | null | undefined;
  enabled?: boolean | undefined;
}

export type ProviderPatch = Partial<Omit<NewProvider, "type">>;

export function isSupportedProviderType(type: string): type is ProviderType {
  return (PROVIDER_TYPES as readonly string[]).includes(type);
}

/**
 * Whether a provider can serve requests: enabled, of a type this build speaks, and with usable
 * credentials. An OpenAI-compatible server (often local) needs a base URL but may need no key.
 */
export function isProviderAvailable(p: Pick<ProviderRow, "type" | "enabled" | "apiKey" | "baseUrl">): boolean {
  if (!p.enabled || !isSupportedProviderType(p.type)) return false;
  if (p.type === "openai-compatible") return Boolean(p.baseUrl);
  return Boolean(p.apiKey);
}

/** `keys`: the deployment's CHAT_SECRETS_KEYS, which seal the API key. */
export async function createProvider(db: Database, input: NewProvider, keys: KeyRing): Promise<ProviderRow> {
  // The id is chosen here: the sealed key is bound to it.
  const id = crypto.randomUUID();
  try {
    const [row] = await db
      .insert(chatProviders)
      .values({
        id,
        type: input.type,
        name: input.name,
        baseUrl: input.baseUrl ?? null,
        ...(await sealedApiKey(keys, id, input.apiKey ?? null)),
        enabled: input.enabled ?? true,
      })
      .returning();
    if (!row) throw new Error("insert into chat_providers returned no row");
    return row;
  } catch (err) {
    if (isUniqueViolation(err)) throw new AlreadyExistsError("provider", "name");
    throw err;
  }
}

export async function listProviders(db: Database): Promise<ProviderRow[]> {
  return db.select().from(chatProviders).orderBy(asc(chatProviders.createdAt), asc(chatProviders.id));
}

export async function getProvider(db: Database, id: string): Promise<ProviderRow | null> {
  const [row] = await db.select().from(chatProviders).where(eq(chatProviders.id, id));
  return row ?? null;
}

export async function findProviderByName(db: Database, name: string): Promise<ProviderRow | null> {
  const [row] = await db.select().from(chatProviders).where(eq(chatProviders.name, name));
  return row ?? null;
}

/** Applies the fields present in `patch`; null clears `baseUrl` or `apiKey`. Null when not found. */
export async function updateProvider(
  db: Database,
  id: string,
  patch: ProviderPatch,
  now: Date,
  keys: KeyRing,
): Promise<ProviderRow | null> {
  const set: Partial<typeof chatProviders.$inferInsert> = { updatedAt: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.baseUrl !== undefined) set.baseUrl = patch.baseUrl;
  if (patch.apiKey !== undefined) Object.assign(set, await sealedApiKey(keys, id, patch.apiKey));
  if (patch.enabled !== undefined) set.enabled = patch.enabled;
  try {
    const [row] = await db.update(chatProviders).set(set).where(eq(chatProviders.id, id)).returning();
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) throw new AlreadyExistsError("provider", "name");
    throw err;
  }
}

/**
 * Deletes a provider no live model config uses, together with the deleted configs that still
 * reference it. False when it does not exist; ProviderInUseError while live configs use it.
 */
export async function deleteProvider(db: Database, id: string): Promise<boolean> {
  try {
    return await db.transaction(async (tx) => {
      // Row lock: a concurrent config insert naming this provider waits, then fails its foreign key.
      const [provider] = await tx.select({ id: chatProviders.id }).from(chatProviders).where(eq(chatProviders.id, id)).for("update");
      if (!provider) return false;
      const [live] = await tx
        .select({ id: chatModelConfigs.id })
        .from(chatModelConfigs)
        .where(and(eq(chatModelConfigs.providerId, id), isNull(chatModelConfigs.deletedAt)))
        .limit(1);
      if (live) throw new ProviderInUseError(id);
      await tx.delete(chatModelConfigs).where(and(eq(chatModelConfigs.providerId, id), isNotNull(chatModelConfigs.deletedAt)));
      await tx.delete(chatProviders).where(eq(chatProviders.id, id));
      return true;
    }, READ_COMMITTED);
  } catch (err) {
    if (isForeignKeyViolation(err)) throw new ProviderInUseError(id);
    throw err;
  }
}
