/**
 * What the parent's tools read about its children, straight from Postgres (never from a child's
 * memory): the database is what survives a crash, so a re-run tool call sees the truth.
 */
import type { ChatStatus } from "../chatstate/states";
import type { Queryable } from "../db/rows";
import type { ChatMessagePart } from "../db/schema/chats";

/** The label a child carries its type in (metadata, visible over HTTP). */
export const SUBAGENT_TYPE_LABEL = "subagent_type";

export interface ChildSummary {
  id: string;
  type: string | null;
  title: string;
  status: ChatStatus;
  archived: boolean;
  lastError: string | null;
  modelConfigId: string | null;
  reasoningEffort: string | null;
}

const SELECT = `SELECT id, labels ->> '${SUBAGENT_TYPE_LABEL}' AS type, title, status, archived, last_error,
  last_model_config_id, last_reasoning_effort FROM chats`;

function summary(raw: Record<string, unknown>): ChildSummary {
  return {
    id: String(raw.id),
    type: (raw.type as string | null) ?? null,
    title: String(raw.title),
    status: raw.status as ChatStatus,
    archived: raw.archived === true,
    lastError: (raw.last_error as string | null) ?? null,
    modelConfigId: (raw.last_model_config_id as string | null) ?? null,
    reasoningEffort: (raw.last_reasoning_effort as string | null) ?? null,
  };
}

/** The parent's direct children, oldest first. */
export async function listChildren(db: Queryable, parentId: string): Promise<ChildSummary[]> {
  const { rows } = await db.query(`${SELECT} WHERE parent_chat_id = $1 ORDER BY created_at, id`, [parentId]);
  return rows.map(summary);
}

/** One child of this parent; undefined for any other chat (another parent's child answers like a missing one). */
export async function getChild(db: Queryable, parentId: string, childId: string): Promise<ChildSummary | undefined> {
  const { rows } = await db.query(`${SELECT} WHERE id = $1 AND parent_chat_id = $2`, [childId, parentId]);
  return rows[0] === undefined ? undefined : summary(rows[0]);
}

/** A child is done for now when no worker will move it without an outside request. */
export function isSettled(child: Pick<ChildSummary, "status" | "archived">): boolean {
  return child.archived || child.status === "waiting" || child.status === "error" || child.status === "requires_action";
}

/** The text of the child's latest visible assistant message (its answer once settled); null when it has none. */
export async function latestAnswer(db: Queryable, childId: string): Promise<string | null> {
  const { rows } = await db.query(
    `SELECT content FROM chat_messages WHERE chat_id = $1 AND role = 'assistant' AND NOT deleted AND NOT model_only
     ORDER BY id DESC LIMIT 1`,
    [childId],
  );
  const content = rows[0]?.content as ChatMessagePart[] | undefined;
  if (!content) return null;
  return content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
}
