/**
 * Usage and cost reads (docs/usage-cost.md): a chat's (with its subagents and turns), a user's and
 * an organization's over a time range. Each is one statement. A step counts wherever it is in
 * history: a step an edit soft-deleted was still paid for. Costs are the ones stored with each step
 * at commit, summed by Postgres as numerics and read back as text, so nothing passes through a
 * float. Every list is bounded by its caller's limit.
 */
import type { Queryable } from "../db/rows";
import {
  type ChatCostWire,
  type ChatUsageWire,
  type ModelUsageWire,
  type OrganizationCostSummaryWire,
  type TotalsRow,
  type TurnUsageWire,
  totalsToWire,
  type UserCostSummaryWire,
  type UserUsageWire,
} from "../wire/cost-wire";

/** The totals over the rows of `m` (chat_messages with usage), as text and counts. */
const TOTALS_SQL = `
  count(*) FILTER (WHERE m.cost_usd IS NOT NULL) AS priced,
  count(*) FILTER (WHERE m.cost_usd IS NULL) AS unpriced,
  coalesce(sum(m.cost_usd), 0)::text AS cost_usd,
  coalesce(sum((m.usage->>'input_tokens')::numeric), 0)::text AS input_tokens,
  coalesce(sum((m.usage->>'output_tokens')::numeric), 0)::text AS output_tokens,
  coalesce(sum((m.usage->>'cached_input_tokens')::numeric), 0)::text AS cached_input_tokens,
  coalesce(sum((m.usage->>'reasoning_tokens')::numeric), 0)::text AS reasoning_tokens`;

/** Costliest first; ties broken by `tie` so pages are stable. */
const costliest = (tie: string) => `t.cost_usd::numeric DESC, ${tie}`;

/** A list of `inner`'s rows as one JSON array (never null). */
const jsonList = (inner: string, order: string) => `(SELECT coalesce(json_agg(t ORDER BY ${order}), '[]'::json) FROM (${inner}) t)`;

const BY_MODEL_SQL = jsonList(
  `SELECT m.model_config_id, mc.display_name, mc.model, ${TOTALS_SQL}
     FROM steps m LEFT JOIN chat_model_configs mc ON mc.id = m.model_config_id
    GROUP BY m.model_config_id, mc.display_name, mc.model
    ORDER BY sum(m.cost_usd) DESC NULLS LAST, m.model_config_id LIMIT 100`,
  costliest("t.model_config_id"),
);

type Row<T> = T & TotalsRow;

interface ModelRow {
  model_config_id: string | null;
  display_name: string | null;
  model: string | null;
}

const modelToWire = (r: Row<ModelRow>): ModelUsageWire => ({
  model_config_id: r.model_config_id,
  display_name: r.display_name ?? r.model,
  model: r.model,
  ...totalsToWire(r),
});

const chatToWire = (r: Row<{ chat_id: string; title: string }>): ChatUsageWire => ({
  chat_id: r.chat_id,
  title: r.title,
  ...totalsToWire(r),
});

/** `steps` for a chat: its own and its subagents' (a root chat's family shares its root_chat_id). */
const CHAT_COST_SQL = `
WITH steps AS (
  SELECT m.* FROM chats c JOIN chat_messages m ON m.chat_id = c.id
   WHERE (c.id = $1 OR c.root_chat_id = $1) AND m.usage IS NOT NULL
), turn_steps AS (
  SELECT m.*, (SELECT u.id FROM chat_messages u
                WHERE u.chat_id = m.chat_id AND u.role = 'user' AND NOT u.model_only AND u.id < m.id
                ORDER BY u.id DESC LIMIT 1) AS user_message_id
    FROM steps m WHERE m.chat_id = $1
)
SELECT (SELECT row_to_json(t) FROM (SELECT ${TOTALS_SQL} FROM steps m) t) AS totals,
       ${jsonList(
         `SELECT m.chat_id, c.title, ${TOTALS_SQL} FROM steps m JOIN chats c ON c.id = m.chat_id GROUP BY m.chat_id, c.title
           ORDER BY (m.chat_id = $1) DESC, sum(m.cost_usd) DESC NULLS LAST, m.chat_id LIMIT 100`,
         "(t.chat_id = $1) DESC, " + costliest("t.chat_id"),
       )} AS by_chat,
       ${BY_MODEL_SQL} AS by_model,
       ${jsonList(
         `SELECT m.user_message_id, min(m.created_at) AS started_at, ${TOTALS_SQL}
            FROM turn_steps m GROUP BY m.user_message_id ORDER BY min(m.created_at) DESC LIMIT $2`,
         "t.started_at DESC",
       )} AS turns`;

export interface ChatCostOptions {
  /** How many of the chat's newest turns to list. */
  turnLimit: number;
}

export async function readChatCost(db: Queryable, chatId: string, options: ChatCostOptions): Promise<ChatCostWire> {
  const { rows } = await db.query(CHAT_COST_SQL, [chatId, options.turnLimit]);
  const row = rows[0] as {
    totals: TotalsRow;
    by_chat: Row<{ chat_id: string; title: string }>[];
    by_model: Row<ModelRow>[];
    turns: Row<TurnRow>[];
  };
  const totals = totalsToWire(row.totals);
  return {
    chat_id: chatId,
    ...totals,
    request_count: totals.priced_message_count + totals.unpriced_message_count,
    unpriced_request_count: totals.unpriced_message_count,
    by_chat: row.by_chat.map(chatToWire),
    by_model: row.by_model.map(modelToWire),
    turns: row.turns.map(
      (r): TurnUsageWire => ({ user_message_id: r.user_message_id, started_at: new Date(r.started_at).toISOString(), ...totalsToWire(r) }),
    ),
  };
}

interface TurnRow {
  /** A JSON number: json_agg writes bigint as one. */
  user_message_id: number | null;
  started_at: string;
}

/** A time range [start, end): both bounds as dates the caller validated. */
export interface CostRange {
  start: Date;
  end: Date;
  /** How many entries a breakdown (chats, users) lists at most. */
  limit: number;
}

/** `steps`: the user's chats' steps in the range, optionally in one organization; root_id rolls subagents into their root. */
const USER_COST_SQL = `
WITH steps AS (
  SELECT m.*, coalesce(c.root_chat_id, c.id) AS root_id
    FROM chats c JOIN chat_messages m ON m.chat_id = c.id
   WHERE c.owner_id = $1 AND ($2::uuid IS NULL OR c.organization_id = $2::uuid)
     AND m.usage IS NOT NULL AND m.created_at >= $3::timestamptz AND m.created_at < $4::timestamptz
)
SELECT (SELECT row_to_json(t) FROM (SELECT ${TOTALS_SQL} FROM steps m) t) AS totals,
       (SELECT count(DISTINCT root_id) FROM steps) AS chat_count,
       ${BY_MODEL_SQL} AS by_model,
       ${jsonList(
         `SELECT m.root_id AS chat_id, r.title, ${TOTALS_SQL} FROM steps m JOIN chats r ON r.id = m.root_id
           GROUP BY m.root_id, r.title ORDER BY sum(m.cost_usd) DESC NULLS LAST, m.root_id LIMIT $5`,
         costliest("t.chat_id"),
       )} AS by_chat`;

export async function readUserCost(
  db: Queryable,
  userId: string,
  organizationId: string | null,
  range: CostRange,
): Promise<Omit<UserCostSummaryWire, "start_date" | "end_date">> {
  const { rows } = await db.query(USER_COST_SQL, [userId, organizationId, range.start.toISOString(), range.end.toISOString(), range.limit]);
  const row = rows[0] as {
    totals: TotalsRow;
    chat_count: string | number;
    by_model: Row<ModelRow>[];
    by_chat: Row<{ chat_id: string; title: string }>[];
  };
  return {
    user_id: userId,
    organization_id: organizationId,
    ...totalsToWire(row.totals),
    by_model: row.by_model.map(modelToWire),
    by_chat: row.by_chat.map(chatToWire),
    chat_count: Number(row.chat_count),
  };
}

/** `steps`: every step of the organization's chats in the range, whoever owns them now. */
const ORGANIZATION_COST_SQL = `
WITH steps AS (
  SELECT m.*, c.owner_id
    FROM chats c JOIN chat_messages m ON m.chat_id = c.id
   WHERE c.organization_id = $1 AND m.usage IS NOT NULL AND m.created_at >= $2::timestamptz AND m.created_at < $3::timestamptz
)
SELECT (SELECT row_to_json(t) FROM (SELECT ${TOTALS_SQL} FROM steps m) t) AS totals,
       (SELECT count(DISTINCT owner_id) FROM steps) AS user_count,
       ${BY_MODEL_SQL} AS by_model,
       ${jsonList(
         `SELECT m.owner_id AS user_id, coalesce(u.username, '') AS username, ${TOTALS_SQL}
            FROM steps m LEFT JOIN users u ON u.id = m.owner_id
           GROUP BY m.owner_id, u.username ORDER BY sum(m.cost_usd) DESC NULLS LAST, m.owner_id LIMIT $4`,
         costliest("t.user_id"),
       )} AS by_user`;

export async function readOrganizationCost(
  db: Queryable,
  organizationId: string,
  range: CostRange,
): Promise<Omit<OrganizationCostSummaryWire, "start_date" | "end_date">> {
  const { rows } = await db.query(ORGANIZATION_COST_SQL, [organizationId, range.start.toISOString(), range.end.toISOString(), range.limit]);
  const row = rows[0] as {
    totals: TotalsRow;
    user_count: string | number;
    by_model: Row<ModelRow>[];
    by_user: Row<{ user_id: string; username: string }>[];
  };
  return {
    organization_id: organizationId,
    ...totalsToWire(row.totals),
    by_model: row.by_model.map(modelToWire),
    by_user: row.by_user.map((r): UserUsageWire => ({ user_id: r.user_id, username: r.username, ...totalsToWire(r) })),
    user_count: Number(row.user_count),
  };
}
