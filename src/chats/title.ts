/**
 * Titles are metadata: written outside transitions, without a snapshot bump or a notification,
 * and without touching updated_at ("Title writes set title_updated_at and do not change
 * updated_at"). "A title write applies only when the current source ranks the same as or lower
 * than the incoming one, in the order fallback, generated, user" — the order is chatstate's
 * TITLE_SOURCES, compared in the UPDATE itself so the check and the write are one statement.
 */
import { ChatNotFoundError, TITLE_SOURCES, type TitleSource } from "../chatstate/index";
import { chatFromRaw, type Queryable } from "../db/rows";
import type { ChatMessagePart, ChatRow } from "../db/schema/chats";

/** The title of a chat created with empty content. */
export const DEFAULT_CHAT_TITLE = "New Chat";
export const FALLBACK_TITLE_MAX_LENGTH = 80;

/** "a title derived from the first prompt": its text, on one line, cut at a word near the limit. */
export function fallbackTitle(content: readonly ChatMessagePart[]): string {
  const text = content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return text === "" ? DEFAULT_CHAT_TITLE : clipTitle(text);
}

/** One-line text cut at a word near FALLBACK_TITLE_MAX_LENGTH, with an ellipsis when cut. */
export function clipTitle(text: string): string {
  if (text.length <= FALLBACK_TITLE_MAX_LENGTH) return text;
  const cut = text.slice(0, FALLBACK_TITLE_MAX_LENGTH - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space >= FALLBACK_TITLE_MAX_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Writes `title` with `source` when the ranking allows it. A write that would change neither the
 * text nor the source is skipped ("unless the title is already a user title" for PATCH).
 */
export async function writeTitle(
  db: Queryable,
  chatId: string,
  title: string,
  source: TitleSource,
): Promise<{ applied: boolean; chat: ChatRow }> {
  const { rows } = await db.query(
    `UPDATE chats SET title = $2, title_source = $3, title_updated_at = now()
     WHERE id = $1
       AND array_position($4::text[], title_source) <= array_position($4::text[], $3::text)
       AND NOT (title = $2 AND title_source = $3)
     RETURNING *`,
    [chatId, title, source, [...TITLE_SOURCES]],
  );
  if (rows[0] !== undefined) return { applied: true, chat: chatFromRaw(rows[0]) };
  const current = await db.query(`SELECT * FROM chats WHERE id = $1`, [chatId]);
  if (current.rows[0] === undefined) throw new ChatNotFoundError(chatId);
  return { applied: false, chat: chatFromRaw(current.rows[0]) };
}
