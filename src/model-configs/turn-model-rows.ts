/**
 * The rows a turn's model is chosen from (src/chat-worker/model-for-turn.ts), read as one column of
 * another statement about the chat: the config the chat last used, and its organization's default,
 * each with its provider. The runner reads them in the statement that reads the chat for a step
 * (the acquisition's commit write, the fenced read), so revalidating the model at every turn costs
 * that turn no round trip of its own. The checks themselves are resolve.ts's, on these rows.
 */
import { modelConfigFromRaw, providerFromRaw, type RawRow } from "../db/rows";
import type { Joined } from "./resolve";

export interface TurnModelRows {
  /** The config named by the chat's last_model_config_id, whatever its state; undefined when none. */
  chosen: Joined | undefined;
  /** The organization's live default, whatever its state; undefined when none. */
  fallback: Joined | undefined;
}

const JOINED_SQL = `json_build_object('config', to_jsonb(mc), 'provider', to_jsonb(p))
    FROM chat_model_configs mc JOIN chat_providers p ON p.id = mc.provider_id`;

/** A select-list expression over the chat row `alias`: its TurnModelRows as JSON. */
export function turnModelRowsSql(alias: string): string {
  return `json_build_object(
    'chosen', (SELECT ${JOINED_SQL} WHERE mc.id = ${alias}.last_model_config_id),
    'fallback', (SELECT ${JOINED_SQL}
      WHERE mc.organization_id = ${alias}.organization_id AND mc.is_default AND mc.deleted_at IS NULL))`;
}

/** The rows of turnModelRowsSql's JSON. */
export function turnModelRowsFromJson(value: unknown): TurnModelRows {
  const json = value as { chosen: RawRow | null; fallback: RawRow | null };
  return { chosen: joinedFromJson(json.chosen), fallback: joinedFromJson(json.fallback) };
}

function joinedFromJson(json: RawRow | null): Joined | undefined {
  if (json === null) return undefined;
  return { config: modelConfigFromRaw(json.config as RawRow), provider: providerFromRaw(json.provider as RawRow) };
}
