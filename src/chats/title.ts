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

/**
 * Title calls a chat gets at most: the first on its first prompt, then the cron's retries of a
 * chat still without a generated title (a crash, a model that was down). Each call has its own
 * retry budget (CHAT_MAX_GENERATION_RETRIES); this bounds how many such calls there are.
 */
export const TITLE_MAX_ATTEMPTS = 3;

/**
 * Takes one of the chat's title attempts, when it still wants a generated title: a root chat whose
 * title is a fallback other than "New Chat", with attempts left. The row as claimed, or null (a
 * user or generated title, a child chat, attempts spent, a deleted chat). One statement, so two
 * objects or the cron and an object never both take the last attempt.
 */
export async function claimTitleAttempt(db: Queryable, chatId: string): Promise<ChatRow | null> {
  const { rows } = await db.query(
    `UPDATE chats SET title_attempts = title_attempts + 1, title_attempted_at = now()
     WHERE id = $1 AND parent_chat_id IS NULL AND title_source = 'fallback' AND title <> $2 AND title_attempts < $3
     RETURNING *`,
    [chatId, DEFAULT_CHAT_TITLE, TITLE_MAX_ATTEMPTS],
  );
  return rows[0] === undefined ? null : chatFromRaw(rows[0]);
}

/** A title call is retried this long after its attempt started without a title written since. */
export const TITLE_RETRY_AFTER_MS = 10 * 60_000;
/** The cron looks back this far: older chats left without a title stay as they are. */
export const TITLE_RETRY_WINDOW_MS = 24 * 3_600_000;

/**
 * Root chats left on a fallback title whose last title attempt (or creation, when none started)
 * is older than TITLE_RETRY_AFTER_MS at `now`, with attempts left: the cron's retries, oldest
 * first. Unarchived chats created within TITLE_RETRY_WINDOW_MS only, so the scan stays small.
 */
export async function findUntitledChats(db: Queryable, now: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT id FROM chats
     WHERE parent_chat_id IS NULL AND title_source = 'fallback'
       AND created_at > $1::timestamptz - make_interval(secs => $2 / 1000.0)
       AND NOT archived AND title <> $3 AND title_attempts < $4
       AND coalesce(title_attempted_at, created_at) < $1::timestamptz - make_interval(secs => $5 / 1000.0)
     ORDER BY created_at
     LIMIT $6`,
    [now.toISOString(), TITLE_RETRY_WINDOW_MS, DEFAULT_CHAT_TITLE, TITLE_MAX_ATTEMPTS, TITLE_RETRY_AFTER_MS, limit],
  );
  return rows.map((r) => String(r.id));
}
