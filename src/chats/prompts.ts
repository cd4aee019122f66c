/**
 * A chat's prompt history (GET /chats/{chat}/prompts): the text of its user messages, newest
 * first, for a composer's up-arrow recall, in the shape of Coder's `ChatPromptsResponse`. Only
 * user messages that history shows (not deleted, not model-only); each prompt is its text parts
 * joined in order (files and other parts left out); prompts with no visible character are skipped.
 * One statement reads the chat's owner with the prompts, so the owner check costs no round trip.
 */
import type { Queryable } from "../db/rows";

/** At most this many characters of prompt text in one answer; the prompt that crosses it is the last one. */
export const PROMPTS_TEXT_BUDGET = 4_000_000;

export interface ChatPrompt {
  /** The user message's id (json_build_object writes bigint as a JSON number). */
  id: number;
  text: string;
}

const PROMPTS_SQL = `
WITH texts AS (
  SELECT m.id,
         (SELECT string_agg(part->>'text', '' ORDER BY n)
            FROM jsonb_array_elements(m.content) WITH ORDINALITY AS parts(part, n)
           WHERE part->>'type' = 'text') AS text
    FROM chat_messages m
   WHERE m.chat_id = $1 AND m.role = 'user' AND NOT m.deleted AND NOT m.model_only
), newest AS (
  SELECT id, text, sum(length(text)) OVER (ORDER BY id DESC) - length(text) AS before
    FROM texts WHERE text ~ '\\S'
   ORDER BY id DESC LIMIT $2
)
SELECT c.owner_id,
       (SELECT coalesce(json_agg(json_build_object('id', id, 'text', text) ORDER BY id DESC), '[]'::json)
          FROM newest WHERE before < $3) AS prompts
  FROM chats c WHERE c.id = $1`;

/** The chat's owner (undefined: no such chat) and its newest `limit` prompts, within `textBudget` characters. */
export async function readChatPrompts(
  db: Queryable,
  chatId: string,
  limit: number,
  textBudget: number = PROMPTS_TEXT_BUDGET,
): Promise<{ ownerId: string; prompts: ChatPrompt[] } | undefined> {
  const { rows } = await db.query(PROMPTS_SQL, [chatId, limit, textBudget]);
  const row = rows[0] as { owner_id: string; prompts: ChatPrompt[] } | undefined;
  return row === undefined ? undefined : { ownerId: row.owner_id, prompts: row.prompts };
}
