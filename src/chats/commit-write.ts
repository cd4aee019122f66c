/**
 * The chats row write of a chat transaction. The row is written once, at the end ("the commit
 * write"), from the in-memory row: status, archived, ownership, last_error, the pending-action
 * deadline, the compaction marker and the model choice, plus `updated_at`, with the writes staged
 * for it: Acquire's heartbeat, a title, and the flags that meet the spec's triggers
 * (generation_attempt, retry_state, the history epoch). ChatTx flushes those flags in a write of
 * their own before anything that would reorder them (a message write, a conflicting flag), so a
 * bundle behaves as if each transition had written immediately. The commit write also checks, in
 * SQL, what must hold at COMMIT (its own conditions and every CommitCheck), and its RETURNING
 * gives the committed values for the notification (after every trigger has run), the queue length
 * and whether the owner's lease is fresh, so publishing costs no extra statement.
 */
import { classify, isRunnable, type ClassifiedState, type OwnershipState, type TitleSource } from "../chatstate/index";
import { ownershipOf } from "../chatstate/chat-versions";
import { failedCommitCheck } from "../db/pg-errors";
import { pgJson, pgText } from "../db/pg-safe";
import { chatFromRaw, type RawRow } from "../db/rows";
import type { ChatRow, RetryState } from "../db/schema/chats";
import type { StoreTransaction } from "../db/transaction";
import { StoreInvariantError } from "./errors";
import { leaseFreshSql } from "./lease-freshness";
import { chatUpdatePayload, type Notifier } from "./notifier";

/** What the commit write returned: the committed row and what is derived from it. */
export interface CommittedChat {
  readonly chat: ChatRow;
  readonly queueLength: number;
  readonly state: ClassifiedState;
  readonly ownership: OwnershipState;
  /** worker_id and runner_id are set and the (chat_id, runner_id) heartbeat is fresh. */
  readonly leaseFresh: boolean;
}

/**
 * A read that must run under the row lock and may veto the commit, folded into the commit write's
 * RETURNING. `columns` gets a function that binds a value and returns its parameter number, and
 * gives extra RETURNING columns for `read`; `conditions` are boolean expressions the statement
 * checks itself (`chatd_check`): one that does not hold raises, and the transaction rolls back
 * with that condition's error. Nothing may veto after the statement: COMMIT may go out with it
 * (StoreTransaction.queryThenCommit). The expressions read the commit write's snapshot, taken
 * after every lock the transaction holds; they cannot see that statement's own writes.
 */
export interface CommitCheck {
  /** Columns for the commit write's RETURNING, or "" for none. */
  columns?(bind: (value: unknown) => number): string;
  conditions?(bind: (value: unknown) => number): readonly CommitCondition[];
  read?(raw: RawRow): void;
}

export interface CommitCondition {
  /** A boolean SQL expression over `chats` (the row as written) that must be true. */
  holds: string;
  /** The error the transaction fails with when it is not. */
  failure: () => Error;
}

/** Writes staged for the row's next write; each goes out with it and is then cleared. */
export interface StagedWrites {
  incrementAttempt: boolean;
  retryState: { value: RetryState | null } | undefined;
  grantHistoryEpoch: boolean;
  /** Acquire's heartbeat row, for this runner. */
  heartbeatRunnerId: string | undefined;
  title: { title: string; source: TitleSource } | undefined;
}

export const NOTHING_STAGED: Readonly<StagedWrites> = {
  incrementAttempt: false,
  retryState: undefined,
  grantHistoryEpoch: false,
  heartbeatRunnerId: undefined,
  title: undefined,
};

/** What only the last write checks and reads: the lease, the conditions, the checks' columns. */
export interface FinalWrite {
  staleThresholdMs: number;
  /** The chat's queue length as the transitions counted it. */
  queueLength: number;
  checks: readonly CommitCheck[];
}

export interface WriteStatement {
  text: string;
  values: unknown[];
  /** Each condition's error by its check name (chatd_check's message). */
  failures: Map<string, () => Error>;
}

/** The row write for `c` with `staged`; with `final`, the commit write's checks and reads too. */
export function rowWriteStatement(c: ChatRow, staged: StagedWrites, final: FinalWrite | null): WriteStatement {
  const values: unknown[] = [
    c.id,
    c.status,
    c.archived,
    c.workerId,
    c.runnerId,
    pgText(c.lastError),
    c.requiresActionDeadlineAt,
    c.compactionRequestedAt,
    c.lastModelConfigId,
    c.lastReasoningEffort,
    c.lastErrorDetail === null ? null : pgJson(c.lastErrorDetail),
  ];
  const sets = [
    "status = $2",
    "archived = $3",
    "worker_id = $4",
    "runner_id = $5",
    "last_error = $6",
    "requires_action_deadline_at = $7",
    "compaction_requested_at = $8",
    "last_model_config_id = $9",
    "last_reasoning_effort = $10",
    "last_error_detail = $11::jsonb",
    "updated_at = now()",
  ];
  if (staged.title !== undefined) {
    values.push(staged.title.title, staged.title.source);
    sets.push(`title = $${values.length - 1}`, `title_source = $${values.length}`, "title_updated_at = now()");
  }
  if (staged.incrementAttempt) sets.push("generation_attempt = generation_attempt + 1");
  if (staged.grantHistoryEpoch) sets.push("history_version = snapshot_version", "generation_attempt = 0");
  // UpdateChatExecutionState "clears retry_state whenever it writes a status other than running".
  if (c.status !== "running") sets.push("retry_state = NULL");
  else if (staged.retryState !== undefined) {
    values.push(staged.retryState.value === null ? null : pgJson(staged.retryState.value));
    sets.push(`retry_state = $${values.length}::jsonb`);
  }
  let text = `UPDATE chats SET ${sets.join(", ")} WHERE id = $1 RETURNING *`;
  const heartbeat = staged.heartbeatRunnerId;
  if (heartbeat !== undefined) {
    values.push(heartbeat);
    text = `WITH ${STAGED_HEARTBEAT} AS (${HEARTBEAT_UPSERT_SQL(values.length)} RETURNING runner_id) ${text}`;
  }
  const failures = new Map<string, () => Error>();
  if (final) {
    const bind = (value: unknown) => values.push(value);
    text += `, ${leaseFreshSql("chats", bind(final.staleThresholdMs), heartbeat === undefined ? undefined : STAGED_HEARTBEAT)} AS lease_fresh`;
    const conditions = [
      ...ownConditions(c.id, final.queueLength, bind),
      ...final.checks.flatMap((check) => check.conditions?.(bind) ?? []),
    ];
    for (const [i, condition] of conditions.entries()) {
      const name = `commit_check_${i}`;
      failures.set(name, condition.failure);
      text += `, chatd_check(${condition.holds}, $${bind(name)}) AS ${name}`;
    }
    for (const check of final.checks) {
      const columns = check.columns?.(bind);
      if (columns) text += `, ${columns}`;
    }
  }
  return { text, values, failures };
}

/** Runs a row write (COMMIT goes out with it when `last`); a condition that failed is its own error. */
export async function runRowWrite(t: StoreTransaction, { text, values, failures }: WriteStatement, last: boolean): Promise<RawRow> {
  let raw: RawRow | undefined;
  try {
    [raw] = await (last ? t.queryThenCommit(text, values) : t.query(text, values));
  } catch (err) {
    const failure = failures.get(failedCommitCheck(err) ?? "");
    throw failure ? failure() : err;
  }
  // Under the row lock the row cannot vanish; were it to, the statement wrote nothing.
  if (raw === undefined) throw new StoreInvariantError(`locked chat ${String(values[0])} vanished`);
  return raw;
}

/**
 * What every commit write checks in SQL: the row keeps the status and archived flag it wrote
 * (no trigger rewrites them), and the queue holds the messages the transitions counted. With
 * ChatTx.commit's check of the in-memory row, the committed row classifies as the last landing.
 */
function ownConditions(chatId: string, counted: number, bind: (value: unknown) => number): CommitCondition[] {
  return [
    {
      holds: "chats.status = $2 AND chats.archived = $3",
      failure: () => new StoreInvariantError(`chat ${chatId}'s status or archived flag changed in its own write`),
    },
    {
      holds: `${QUEUE_LENGTH_OF_ROW_SQL} = $${bind(counted)}`,
      failure: () => new StoreInvariantError(`chat ${chatId} does not have the ${counted} queued messages the transitions counted`),
    },
  ];
}

/** The CTE of a write that upserts Acquire's heartbeat (ChatTx.stageHeartbeat). */
const STAGED_HEARTBEAT = "staged_heartbeat";

/** Acquire's heartbeat upsert for ($1 chat id, `$runnerParam`), stamped with the statement's time. */
const HEARTBEAT_UPSERT_SQL = (runnerParam: number) =>
  `INSERT INTO chat_heartbeats (chat_id, runner_id, heartbeat_at) VALUES ($1, $${runnerParam}, statement_timestamp())
     ON CONFLICT (chat_id, runner_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`;

/** The queue length of the chat row `chats` as a statement's snapshot sees it. */
const QUEUE_LENGTH_OF_ROW_SQL = "(SELECT count(*)::int FROM chat_queued_messages q WHERE q.chat_id = chats.id)";

/** Extra RETURNING columns of a write that reads its rows back for publishing: the queue length and the lease (committedFromRaw). */
export function committedExtrasSql(staleParam: number): string {
  return `${QUEUE_LENGTH_OF_ROW_SQL} AS queue_length, ${leaseFreshSql("chats", staleParam)} AS lease_fresh`;
}

export function committedFromRaw(raw: RawRow): CommittedChat {
  const chat = chatFromRaw(raw);
  const queueLength = Number(raw.queue_length);
  return {
    chat,
    queueLength,
    state: classify(chat, queueLength),
    ownership: ownershipOf(chat),
    leaseFresh: raw.lease_fresh === true,
  };
}

/**
 * Buffers the spec's notifications for one committed chat: `chat:update` always, `chat:ownership`
 * when the chat is runnable and no worker holds a fresh lease. They run after COMMIT only.
 */
export function publishAfterCommit(t: StoreTransaction, notifier: Notifier, committed: CommittedChat): void {
  const payload = chatUpdatePayload(committed.chat);
  t.afterCommit(() => notifier.chatUpdated(payload));
  if (isRunnable(committed.state) && !committed.leaseFresh) {
    t.afterCommit(() => notifier.ownershipHint({ chat_id: payload.chat_id, snapshot_version: payload.snapshot_version }));
  }
}
