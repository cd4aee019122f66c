/**
 * The rows a turn's model is chosen from (src/chat-worker/model-for-turn.ts), read as one column of
 * another statement about the chat: the config the chat last used, and its organization's default,
 * each with its provider; and what the compaction gate decides with (src/chat-worker/compaction-setup.ts):
 * the owner's threshold and the organization's compaction override with its config. The runner reads
 * them in the statement that reads the chat for a step (the acquisition's commit write, the fenced
 * read), so revalidating the model and gating compaction at every turn cost that turn no round trip
 * of its own. The checks themselves are resolve.ts's, on these rows.
 */
import { modelConfigFromRaw, providerFromRaw, type RawRow } from "../db/rows";
import type { Joined } from "./resolve";

export interface TurnModelRows {
  /** The config named by the chat's last_model_config_id, whatever its state; undefined when none. */
  chosen: Joined | undefined;
  /** The organization's live default, whatever its state; undefined when none. */
  fallback: Joined | undefined;
  compaction: CompactionRows;
}

/** The rows of the spec's "Compaction model selection" for the chat. */
export interface CompactionRows {
  /** The owner's personal threshold; null when unset (or the owner has no preferences row). */
  ownerThresholdPercent: number | null;
  /** The organization's compaction override with the config it names, whatever its state; null when none. */
  override: { modelConfigId: string; joined: Joined | undefined } | null;
}

const JOINED_SQL = `json_build_object('config', to_jsonb(mc), 'provider', to_jsonb(p))
    FROM chat_model_configs mc JOIN chat_providers p ON p.id = mc.provider_id`;

/** A select-list expression over the chat row `alias`: its TurnModelRows as JSON. */
export function turnModelRowsSql(alias: string): string {
  return `json_build_object(
    'chosen', (SELECT ${JOINED_SQL} WHERE mc.id = ${alias}.last_model_config_id),
    'fallback', (SELECT ${JOINED_SQL}
      WHERE mc.organization_id = ${alias}.organization_id AND mc.is_default AND mc.deleted_at IS NULL),
    'owner_threshold_percent', (SELECT up.compaction_threshold_percent FROM chat_user_preferences up
      WHERE up.user_id = ${alias}.owner_id),
    'compaction_override', (SELECT json_build_object('model_config_id', o.model_config_id, 'config', to_jsonb(mc), 'provider', to_jsonb(p))
      FROM chat_organization_model_overrides o
        LEFT JOIN chat_model_configs mc ON mc.id = o.model_config_id
        LEFT JOIN chat_providers p ON p.id = mc.provider_id
      WHERE o.organization_id = ${alias}.organization_id AND o.context = 'compaction'))`;
}

/** The rows of turnModelRowsSql's JSON. */
export function turnModelRowsFromJson(value: unknown): TurnModelRows {
  const json = value as {
    chosen: RawRow | null;
    fallback: RawRow | null;
    owner_threshold_percent: number | null;
    compaction_override: (RawRow & { model_config_id: string }) | null;
  };
  const override = json.compaction_override;
  return {
    chosen: joinedFromJson(json.chosen),
    fallback: joinedFromJson(json.fallback),
    compaction: {
      ownerThresholdPercent: json.owner_threshold_percent,
      override: override === null ? null : { modelConfigId: override.model_config_id, joined: joinedFromJson(override) },
    },
  };
}

function joinedFromJson(json: RawRow | null): Joined | undefined {
  // An override's config row is always there (a foreign key); a join that found none gives nulls.
  if (json === null || json.config === null) return undefined;
  return { config: modelConfigFromRaw(json.config as RawRow), provider: providerFromRaw(json.provider as RawRow) };
}
