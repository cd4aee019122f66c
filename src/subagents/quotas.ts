/**
 * Subagent quotas (docs/fairness.md "Quotas"): how many children one turn of a root chat may
 * spawn, and how many its family may hold in all (closed and archived children included: each is
 * a chat with its history). Checked by spawn_agent before it creates a child; a call beyond them
 * is an error result the model reads, and nothing is created. A re-run of a call that already
 * created its child finds that child first and is not counted again.
 */
import type { Queryable } from "../db/rows";
import { QuotaExceededError } from "../limits/errors";

export interface SubagentQuotas {
  readonly perTurn: number;
  readonly perFamily: number;
}

/**
 * The turn began with the chat's latest user message: the children created since then are this
 * turn's. One read.
 */
export async function assertSubagentQuotas(db: Queryable, parentId: string, quotas: SubagentQuotas): Promise<void> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS family,
       count(*) FILTER (WHERE c.created_at >= coalesce(
         (SELECT max(m.created_at) FROM chat_messages m WHERE m.chat_id = $1 AND m.role = 'user'), '-infinity'))::int AS turn
     FROM chats c WHERE c.parent_chat_id = $1`,
    [parentId],
  );
  const family = Number(rows[0]?.family ?? 0);
  const turn = Number(rows[0]?.turn ?? 0);
  if (turn >= quotas.perTurn) {
    throw new QuotaExceededError(
      "subagents_per_turn",
      quotas.perTurn,
      `this turn already spawned ${turn} subagents, the most one turn may`,
    );
  }
  if (family >= quotas.perFamily) {
    throw new QuotaExceededError("subagents_per_family", quotas.perFamily, `this chat already has ${family} subagents, the most it may`);
  }
}
