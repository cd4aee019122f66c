/**
 * Which model config a chat write uses (spec "Organization-local model selection and fallback"):
 * an explicit config must be live, enabled, of the chat's organization, and its provider enabled
 * and available; without one, the organization's default must pass the same checks. Never falls
 * back to another organization's model.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Database } from "../db/database";
import { chatModelConfigs, chatProviders } from "../db/schema/models";
import type { ModelConfigRow } from "./configs";
import { type ModelConfigRejection, ModelConfigUnavailableError, NoDefaultModelConfigError } from "./errors";
import type { ModelConfigOptions } from "./options";
import { isProviderAvailable, type ProviderRow } from "./providers";

export interface ResolvedModelConfig {
  config: ModelConfigRow;
  provider: ProviderRow;
}

export interface ModelConfigRequest {
  organizationId: string;
  /** The config the client asked for; absent: the organization's default. */
  modelConfigId?: string | null | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A config row with its provider's, as the database holds them. */
export type Joined = { config: typeof chatModelConfigs.$inferSelect; provider: ProviderRow };

function rejection(found: Joined | undefined, organizationId: string): ModelConfigRejection | null {
  // Another organization's config is reported as missing: its existence is not ours to reveal.
  if (!found || found.config.organizationId !== organizationId) return "not_found";
  if (found.config.deletedAt !== null) return "deleted";
  if (!found.config.enabled) return "disabled";
  if (!found.provider.enabled) return "provider_disabled";
  if (!isProviderAvailable(found.provider)) return "provider_unavailable";
  return null;
}

function resolved(found: Joined): ResolvedModelConfig {
  return { config: { ...found.config, options: found.config.options as ModelConfigOptions }, provider: found.provider };
}

const joinedSelect = (db: Database) =>
  db
    .select({ config: chatModelConfigs, provider: chatProviders })
    .from(chatModelConfigs)
    .innerJoin(chatProviders, eq(chatProviders.id, chatModelConfigs.providerId));

/** Throws ModelConfigUnavailableError (explicit config) or NoDefaultModelConfigError (none given). */
export async function resolveModelConfig(db: Database, request: ModelConfigRequest): Promise<ResolvedModelConfig> {
  const { organizationId, modelConfigId } = request;
  if (modelConfigId) return checkedModelConfig(request, await readJoinedConfig(db, modelConfigId));

  const [found] = await joinedSelect(db).where(
    and(eq(chatModelConfigs.organizationId, organizationId), eq(chatModelConfigs.isDefault, true), isNull(chatModelConfigs.deletedAt)),
  );
  return checkedModelConfig(request, found);
}

/** The config `id` names with its provider, whatever its state or organization; undefined when none. */
export async function readJoinedConfig(db: Database, id: string): Promise<Joined | undefined> {
  const [found] = await readJoinedConfigs(db, [id]);
  return found;
}

/** The configs `ids` name with their providers, in one read (an id that names nothing is left out). */
export async function readJoinedConfigs(db: Database, ids: readonly string[]): Promise<Joined[]> {
  // Not a UUID: it names nothing (and Postgres would reject the comparison).
  const named = ids.filter((id) => UUID.test(id));
  return named.length === 0 ? [] : joinedSelect(db).where(inArray(chatModelConfigs.id, named));
}

/** Whether `organizationId` may use the config `found` now: resolveModelConfig's checks, without the error. */
export function isUsableConfig(found: Joined, organizationId: string): boolean {
  return rejection(found, organizationId) === null;
}

/**
 * resolveModelConfig's answer for the row it read: `found` is the config `request` names (or,
 * naming none, its organization's default) with its provider, undefined when there is none.
 */
export function checkedModelConfig(request: ModelConfigRequest, found: Joined | undefined): ResolvedModelConfig {
  const reason = rejection(found, request.organizationId);
  if (reason || !found) {
    if (request.modelConfigId) throw new ModelConfigUnavailableError(request.modelConfigId, reason ?? "not_found");
    throw new NoDefaultModelConfigError(request.organizationId, reason ?? "not_found");
  }
  return resolved(found);
}
