/**
 * The per-chat handle every transition runs on: the locked chat row, its queue length, the staged
 * write, and the rules that apply to every landing. One ChatTx lives inside one transaction.
 *
 * The chats row is written once, at the end ("the commit write"), from the in-memory row: status,
 * archived, ownership, last_error, the pending-action deadline and the compaction marker, plus
 * `updated_at`. Its RETURNING gives the committed values for the notification (after every
 * trigger has run), the queue length, and whether the owner's lease is fresh, so publishing costs
 * no extra statement. Writes that interact with the spec's triggers (generation_attempt,
 * retry_state, the history epoch) are staged as flags and flushed before anything that would
 * reorder them (a message write, a conflicting flag), so a bundle behaves as if each transition
 * had written immediately.
 */
import { pgJson, pgText } from "../db/pg-safe";
import {
  ChatNotFoundError,
  classify,
  classifyForTransition,
  columnsFor,
  isAllowed,
  isRunnable,
  keepsCompactionRequest,
  landing,
  leavesError,
  mustCancelPendingToolCalls,
  nextRequiresActionDeadline,
  ownershipLanding,
  TransitionNotAllowedError,
  type ClassifiedState,
  type ExecutionState,
  type ExecutionTransitionName,
  type OwnershipState,
  type OwnershipTransitionName,
  type TitleSource,
  type TransitionName,
  type VariantOf,
} from "../chatstate/index";
import { failedCommitCheck } from "../db/pg-errors";
import { StoreInvariantError } from "./errors";
import { answerPendingToolCalls, ACTIVE_TAIL_SQL, type HistoryTx, type NewMessage } from "./history";
import { leaseFreshSql } from "./lease-freshness";
import { chatUpdatePayload, type Notifier } from "./notifier";
import { chatFromRaw, messageFromRaw, queuedFromRaw, type RawRow } from "../db/rows";
import type { ChatMessageRow, ChatQueuedMessageRow, ChatRow, RetryState } from "../db/schema/chats";
import type { StoreTransaction } from "../db/transaction";
import { ownershipOf } from "../chatstate/chat-versions";

export interface ChatTxOptions {
  /** The clock for timestamps the state machine computes (deadlines, compaction requests). */
  now: () => Date;
  /** A heartbeat older than this is stale: the ownership hint fires (spec: 30 seconds). */
  staleThresholdMs: number;
  /** EnterRequiresAction's deadline offset (spec: 5 minutes). */
  requiresActionTimeoutMs: number;
  /** A queueing SendMessage beyond this many queued messages fails with QueueFullError. */
  maxQueueLength: number;
}

export interface AppliedTransition {
  readonly transition: TransitionName;
  readonly from: ClassifiedState | OwnershipState;
  readonly to: ExecutionState | OwnershipState;
}

/** What the commit write returned: the committed row and what is derived from it. */
export interface CommittedChat {
  readonly chat: ChatRow;
  readonly queueLength: number;
  readonly state: ClassifiedState;
  readonly ownership: OwnershipState;
  /** worker_id and runner_id are set and the (chat_id, runner_id) heartbeat is fresh. */
  readonly leaseFresh: boolean;
}

export interface LandOptions {
  /** The tool-result text when the landing cancels pending dynamic tool calls (misc rule 1). */
  cancelReason?: string;
  /** Overrides the store clock for this landing's timestamps (EnterRequiresAction's deadline). */
  now?: Date;
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

/**
 * Whether the chat row `alias`, as a locking statement returns it, is the row that statement's
 * snapshot saw (`ownBumps`: the snapshot_version bumps the statement itself made): then nothing
 * was committed on the chat while it waited for the lock, and its subqueries, which read the
 * snapshot, read what the lock holds. Every write to a chat's history or queue bumps the row under
 * its lock first (ChatTx), so equal versions mean equal history and queue.
 */
export function unchangedSinceSnapshotSql(alias: string, ownBumps: 0 | 1): string {
  return `coalesce((SELECT s.snapshot_version = ${alias}.snapshot_version${ownBumps === 1 ? " - 1" : ""}
        AND s.history_version = ${alias}.history_version AND s.queue_version = ${alias}.queue_version
      FROM chats s WHERE s.id = ${alias}.id), false)`;
}

/** Prefetch the active history tail (and the queue head) with the queue count (one statement instead of two). */
export type TailPrefetch = boolean | ((chat: ChatRow) => boolean);

/** What the row lock reads besides the row and the queue count. */
export interface LockReads {
  tail: TailPrefetch;
  /** The queue head: a promotion of it then rides with the next statement (queue.ts). Tail prefetches read it too. */
  queueHead?: boolean;
}

const TAIL_SQL = `(SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY t.seq), '[]'::jsonb) FROM (${ACTIVE_TAIL_SQL}) t)`;
/** The queue head as a JSON row, or null for an empty queue. */
const QUEUE_HEAD_SQL = "(SELECT to_jsonb(q) FROM chat_queued_messages q WHERE q.chat_id = $1 AND q.position = 0)";

/** The select-list of the count (and the tail, and the head) for $1's chat. */
function queueReadsSql(withTail: boolean, withHead: boolean): string {
  return [
    "(SELECT count(*)::int FROM chat_queued_messages WHERE chat_id = $1) AS queue_length",
    ...(withTail ? [`${TAIL_SQL} AS tail`] : []),
    ...(withTail || withHead ? [`${QUEUE_HEAD_SQL} AS queue_head`] : []),
  ].join(",\n    ");
}

/**
 * The lock-and-bump with the queue count (and the tail, and the head) in its RETURNING: one round
 * trip instead of two, valid only when nothing was committed on the chat between the statement's
 * snapshot and the row lock. Its subqueries read that snapshot, taken before any wait for the
 * lock, while the row comes back as locked; every write to a chat's queue or history bumps the row
 * under its lock first (ChatTx is the only writer), so the row as the snapshot saw it being one
 * bump behind the locked one means the counts are current. Otherwise `unchanged` is false and they
 * are read again (recountSql).
 */
function lockBumpAndReadSql(withTail: boolean, withHead: boolean, guarded: boolean): string {
  return `UPDATE chats SET snapshot_version = snapshot_version + 1 WHERE id = $1${guarded ? ` AND ${LOCK_ROW_GUARD_SQL}` : ""}
  RETURNING *,
    ${unchangedSinceSnapshotSql("chats", 1)} AS unchanged,
    ${queueReadsSql(withTail, withHead)}`;
}

/** The transaction-local setting a guard statement leaves for ChatTx.lockIf's row lock. */
const LOCK_ROW_SETTING = "chatd.lock_row";
const LOCK_ROW_GUARD_SQL = `current_setting('${LOCK_ROW_SETTING}', true) = 'true'`;

/**
 * A select-list expression for ChatTx.lockIf's guard statement: the row lock that follows in the
 * same round trip locks the row only when `condition` (a boolean) was true.
 */
export function lockRowIfSql(condition: string): string {
  return `set_config('${LOCK_ROW_SETTING}', (${condition})::text, true)`;
}

/** A statement sent ahead of ChatTx.lockIf's row lock; it decides with lockRowIfSql. */
export interface LockGuard {
  text: string;
  values: readonly unknown[];
}

/** The lock statements by what they read (built once each). */
const LOCK_SQL = new Map<string, string>();
function lockSql(withTail: boolean, withHead: boolean, guarded: boolean): string {
  const key = `${withTail}/${withHead}/${guarded}`;
  const built = LOCK_SQL.get(key);
  if (built !== undefined) return built;
  const sql = lockBumpAndReadSql(withTail, withHead, guarded);
  LOCK_SQL.set(key, sql);
  return sql;
}

/** A chat's queue length ($1 the chat id), as `queue_length`. */
export const QUEUE_LENGTH_SQL = `SELECT count(*)::int AS queue_length FROM chat_queued_messages WHERE chat_id = $1`;

/** The lock's reads again, on a fresh snapshot, after a commit the lock waited for. */
const recountSql = (withTail: boolean, withHead: boolean) => `SELECT ${queueReadsSql(withTail, withHead)}`;

export class ChatTx implements HistoryTx {
  readonly #t: StoreTransaction;
  readonly #options: ChatTxOptions;
  #chat: ChatRow;
  #queueLength: number;
  #tail: ChatMessageRow[] | undefined;
  /** Each queued INSERT's messages until it goes out (queueInsert). */
  #unsent: NewMessage[][] = [];
  #incrementAttempt = false;
  #retryState: { value: RetryState | null } | undefined;
  #grantHistoryEpoch = false;
  /** Acquire's heartbeat row, for this runner: upserted by the next write of the row. */
  #heartbeatRunnerId: string | undefined;
  #title: { title: string; source: TitleSource } | undefined;
  #commitChecks: CommitCheck[] = [];
  #expected: ExecutionState | undefined;
  #applied: AppliedTransition[] = [];
  #inserted: ChatMessageRow[] = [];
  /** The queue head as this transaction left it: null for an empty queue, undefined when not read. */
  #queueHead: ChatQueuedMessageRow | null | undefined;
  #committed = false;

  private constructor(t: StoreTransaction, chat: ChatRow, queueLength: number, tail: ChatMessageRow[] | undefined, options: ChatTxOptions) {
    this.#t = t;
    this.#chat = chat;
    this.#queueLength = queueLength;
    this.#tail = tail;
    this.#options = options;
  }

  /**
   * Locks the chat row and advances snapshot_version in one statement (an UPDATE takes the row
   * lock; the bump precedes every other write), counting the queue (and reading the tail) in the
   * same statement when no other transaction committed on the chat while it waited for the lock
   * (lockBumpAndReadSql); otherwise in a second statement, a fresh snapshot that sees every queue
   * change committed before the lock was granted. A prefetch that depends on the row reads the tail
   * in the first statement either way: a small read where a round trip is the cost.
   * Throws ChatNotFoundError when the row does not exist.
   */
  static async lock(t: StoreTransaction, chatId: string, options: ChatTxOptions, reads: LockReads = { tail: false }): Promise<ChatTx> {
    const [raw] = await t.query(lockSql(reads.tail !== false, reads.queueHead === true, false), [chatId]);
    if (raw === undefined) throw new ChatNotFoundError(chatId);
    return ChatTx.#locked(t, chatId, raw, options, reads);
  }

  /**
   * `lock` after `guard`, in one round trip: the row is locked (and bumped) only when the guard's
   * lockRowIfSql condition was true, so a guard that decides against it leaves the row untouched.
   * The guard runs first, so any lock it takes comes before the row lock. Answers the guard's row
   * and the handle, or no handle when the guard decided against the lock or the row is gone.
   */
  static async lockIf(
    t: StoreTransaction,
    chatId: string,
    options: ChatTxOptions,
    reads: LockReads,
    guard: LockGuard,
  ): Promise<{ guardRow: RawRow | undefined; tx: ChatTx | undefined }> {
    const lock = lockSql(reads.tail !== false, reads.queueHead === true, true);
    const [guardRows, lockRows] = await t.queryEach([guard, { text: lock, values: [chatId] }]);
    const raw = lockRows?.[0];
    return { guardRow: guardRows?.[0], tx: raw === undefined ? undefined : await ChatTx.#locked(t, chatId, raw, options, reads) };
  }

  static async #locked(t: StoreTransaction, chatId: string, raw: RawRow, options: ChatTxOptions, reads: LockReads): Promise<ChatTx> {
    type Prefetched = { queue_length: number; tail?: RawRow[]; queue_head?: RawRow | null };
    const locked = raw as RawRow & Prefetched & { unchanged: boolean };
    const chat = chatFromRaw(locked);
    const handle = (read: Prefetched) => {
      const tx = new ChatTx(t, chat, read.queue_length, read.tail?.map(messageFromRaw), options);
      if (read.queue_head !== undefined) tx.#queueHead = read.queue_head === null ? null : queuedFromRaw(read.queue_head);
      return tx;
    };
    if (locked.unchanged === true) return handle(locked);
    // A prefetch that depends on the row asks again on what the lock holds.
    const wantTail = typeof reads.tail === "function" ? reads.tail(chat) : reads.tail;
    const wantHead = reads.queueHead === true;
    const [row] = await t.query<Prefetched>(wantTail || wantHead ? recountSql(wantTail, wantHead) : QUEUE_LENGTH_SQL, [chatId]);
    return handle({ ...row, queue_length: row?.queue_length ?? 0, ...(wantTail ? { tail: row?.tail ?? [] } : {}) });
  }

  /** The handle for a chat Create has just inserted in this transaction (empty queue and history). */
  static forCreated(t: StoreTransaction, chat: ChatRow, options: ChatTxOptions): ChatTx {
    const tx = new ChatTx(t, chat, 0, [], options);
    tx.#queueHead = null;
    return tx;
  }

  get chatId(): string {
    return this.#chat.id;
  }

  /** The chat as the transitions applied so far left it (ownership, status, ... not yet written). */
  get chat(): Readonly<ChatRow> {
    return this.#chat;
  }

  get queueLength(): number {
    return this.#queueLength;
  }

  /** The queue head, when the lock read it (LockReads) and the queue writes since kept it: undefined otherwise. */
  get queueHead(): ChatQueuedMessageRow | null | undefined {
    return this.#queueHead;
  }

  get options(): Readonly<ChatTxOptions> {
    return this.#options;
  }

  get transaction(): StoreTransaction {
    return this.#t;
  }

  /** Every transition applied on this chat in this transaction, in order. */
  get applied(): readonly AppliedTransition[] {
    return this.#applied;
  }

  now(): Date {
    return this.#options.now();
  }

  state(): ClassifiedState {
    return classify(this.#chat, this.#queueLength);
  }

  ownership(): OwnershipState {
    return ownershipOf(this.#chat);
  }

  query<R extends RawRow = RawRow>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    this.#assertOpen();
    return this.#t.query<R>(text, values);
  }

  // ---- the state machine ---------------------------------------------------------------------

  /**
   * The input state of `transition`, or the typed rejection: ChatNotFoundError (N),
   * InvalidStateError (Invalid, except for ReconcileInvalidState), TransitionNotAllowedError (no
   * edge, or no edge for this request variant). Call it before any write.
   */
  from<T extends ExecutionTransitionName>(transition: T, requestVariant?: VariantOf<T>): ClassifiedState {
    this.#assertOpen();
    const from = classifyForTransition(transition, this.chatId, this.#chat, this.#queueLength);
    if (!isAllowed(transition, from, requestVariant)) throw new TransitionNotAllowedError(transition, from);
    return from;
  }

  /**
   * Lands `transition` where the table says, and applies the rules every landing shares:
   * cancellation of pending dynamic tool calls when leaving requires_action (misc rule 1), the
   * leave-error rule, the one-shot compaction marker, and the pending-action deadline. Status
   * and archived come from the landing state's line of the spec's table.
   */
  async land<T extends ExecutionTransitionName>(
    transition: T,
    from: ClassifiedState,
    variant: VariantOf<T> | undefined,
    options: LandOptions = {},
  ): Promise<ExecutionState> {
    const to = landing(transition, from, variant);
    if (mustCancelPendingToolCalls(transition, from, to)) {
      await answerPendingToolCalls(this, { dynamicOnly: true, reason: options.cancelReason ?? "the pending action was cancelled" });
    }
    const { status, archived } = columnsFor(to);
    const now = options.now ?? this.now();
    const keepsCompaction =
      transition === "SendMessage"
        ? keepsCompactionRequest("SendMessage", variant as VariantOf<"SendMessage">)
        : keepsCompactionRequest(transition as Exclude<ExecutionTransitionName, "SendMessage">);
    const deadline =
      transition === "EnterRequiresAction"
        ? new Date(now.getTime() + this.#options.requiresActionTimeoutMs)
        : nextRequiresActionDeadline(transition, to, this.#chat.requiresActionDeadlineAt, now);
    this.#chat = {
      ...this.#chat,
      status,
      archived,
      lastError: leavesError(from, to, transition) ? null : this.#chat.lastError,
      lastErrorDetail: leavesError(from, to, transition) ? null : this.#chat.lastErrorDetail,
      compactionRequestedAt: keepsCompaction ? this.#chat.compactionRequestedAt : null,
      requiresActionDeadlineAt: deadline,
    };
    this.#expected = to;
    this.#applied.push({ transition, from, to });
    return to;
  }

  /** Acquire and Abandon: ownership only, "fully orthogonal to the execution state transitions". */
  setOwnership(transition: OwnershipTransitionName, owner: { workerId: string; runnerId: string } | null): OwnershipState {
    this.#assertOpen();
    const from = this.ownership();
    const to = ownershipLanding(transition, from);
    this.#chat = { ...this.#chat, workerId: owner?.workerId ?? null, runnerId: owner?.runnerId ?? null };
    this.#applied.push({ transition, from, to });
    return to;
  }

  /** Field writes a transition makes besides its landing (FinishError's error, Reconcile's reset...). */
  set(
    fields: Partial<Pick<ChatRow, "lastError" | "lastErrorDetail" | "compactionRequestedAt" | "lastModelConfigId" | "lastReasoningEffort">>,
  ): void {
    this.#assertOpen();
    this.#chat = { ...this.#chat, ...fields };
  }

  // ---- staged writes that meet the triggers --------------------------------------------------

  async incrementGenerationAttempt(): Promise<void> {
    if (this.#retryState !== undefined || this.#grantHistoryEpoch) await this.flush();
    this.#incrementAttempt = true;
  }

  async setRetryState(value: RetryState | null): Promise<void> {
    if (this.#incrementAttempt || this.#grantHistoryEpoch) await this.flush();
    this.#retryState = { value };
  }

  /** RequestCompaction: "advances history_version to the transaction's new snapshot_version, and resets generation_attempt". */
  async grantHistoryEpoch(): Promise<void> {
    if (this.#incrementAttempt || this.#retryState !== undefined) await this.flush();
    this.#grantHistoryEpoch = true;
  }

  /** Called before every chat_messages write: the revision trigger resets generation_attempt. */
  async beforeHistoryWrite(): Promise<void> {
    if (this.#incrementAttempt || this.#retryState !== undefined || this.#grantHistoryEpoch) await this.flush();
  }

  /**
   * Acquire's initial heartbeat for (chat, runnerId), written by the commit write (or the next
   * flush) in the same statement, which then counts it as the fresh lease it is.
   */
  stageHeartbeat(runnerId: string): void {
    this.#assertOpen();
    this.#heartbeatRunnerId = runnerId;
  }

  /**
   * A title for the chat row's next write (the commit write, or the next flush), in the same
   * statement. Unconditional: the caller has decided, on the locked row, that it applies (the
   * title sources' ranking is src/chats/title.ts's, for writes outside a transition).
   */
  stageTitle(title: string, source: TitleSource): void {
    this.#assertOpen();
    this.#title = { title, source };
  }

  /** Runs `check` in the commit write's statement (CommitCheck). */
  checkAtCommit(check: CommitCheck): void {
    this.#assertOpen();
    this.#commitChecks.push(check);
  }

  // ---- history and queue bookkeeping ---------------------------------------------------------

  /** Active history from the last active assistant message onwards (empty when there is none). */
  async activeTail(): Promise<readonly ChatMessageRow[]> {
    if (this.#tail === undefined) {
      // A queued INSERT goes out first in the read's own round trip, and the read sees its rows.
      const rows = await this.query(ACTIVE_TAIL_SQL, [this.chatId]);
      this.#tail = rows.map(messageFromRaw);
    } else if (this.#t.hasQueued) {
      // Its rows join the cached tail when it goes out: send it first.
      await this.#t.flushQueued();
    }
    return this.#tail;
  }

  /**
   * How many messages this transaction has inserted so far, queued INSERTs that have not gone out
   * counted (their rows take these places when they arrive: they go out before any later
   * statement); see insertedSince and insertedBetween.
   */
  get insertedCount(): number {
    return this.#inserted.length + this.#unsent.reduce((n, batch) => n + batch.length, 0);
  }

  /** The messages inserted since `insertedCount` was `mark`, in order (a transition's own rows). */
  insertedSince(mark: number): ChatMessageRow[] {
    return this.#inserted.slice(mark);
  }

  /**
   * The messages inserted between two readings of `insertedCount`, for a transition whose last
   * INSERT may be queued: read it after the commit (it throws while a row is still to arrive).
   */
  insertedBetween(mark: number, end: number): ChatMessageRow[] {
    if (this.#inserted.length < end)
      throw new StoreInvariantError(`history rows of chat ${this.chatId} were read before their INSERT went out`);
    return this.#inserted.slice(mark, end);
  }

  /**
   * A transition's result: `fields` with `messages`, the rows it inserted since `insertedCount`
   * was `mark`, up to now. A getter, read after the commit (insertedBetween); spreading the
   * result inside the transaction throws as reading it does.
   */
  withRowsSince<T extends object>(mark: number, fields: T): T & { readonly messages: ChatMessageRow[] } {
    const end = this.insertedCount;
    return Object.defineProperty(fields, "messages", { get: () => this.insertedBetween(mark, end), enumerable: true }) as T & {
      readonly messages: ChatMessageRow[];
    };
  }

  /** Keeps the cached tail in step with rows this transaction inserted. */
  noteInserted(rows: readonly ChatMessageRow[]): void {
    for (const row of rows) {
      this.#inserted.push(row);
      this.#noteModelChoice(row);
      if (this.#tail === undefined) continue;
      if (row.role === "assistant") this.#tail = [row];
      else if (this.#tail.length > 0) this.#tail.push(row);
    }
  }

  /** StoreTransaction.queueStatement for an INSERT of `messages`; the row's model choice follows them now (the commit write may be the statement it goes with). */
  queueInsert(text: string, values: readonly unknown[], messages: readonly NewMessage[], onRows: (rows: readonly RawRow[]) => void): void {
    this.#assertOpen();
    for (const message of messages) this.#noteModelChoice(message);
    const batch = [...messages];
    this.#unsent.push(batch);
    this.#t.queueStatement(text, values, (rows) => {
      this.#unsent = this.#unsent.filter((b) => b !== batch);
      onRows(rows);
    });
  }

  get cachedTail(): readonly ChatMessageRow[] | undefined {
    return this.#tail;
  }

  get unsentMessages(): readonly NewMessage[] {
    return this.#unsent.flat();
  }

  /**
   * Each tracks the latest user message that set it (spec "Reasoning effort": "mirroring
   * last_model_config_id"): a model sent alone keeps the effort, an effort sent alone counts.
   */
  #noteModelChoice(message: Pick<NewMessage, "role" | "modelOnly" | "modelConfigId" | "reasoningEffort">): void {
    if (message.role !== "user" || message.modelOnly) return;
    if (message.modelConfigId != null) this.#chat = { ...this.#chat, lastModelConfigId: message.modelConfigId };
    if (message.reasoningEffort != null) this.#chat = { ...this.#chat, lastReasoningEffort: message.reasoningEffort };
  }

  /** After a soft delete that read what is left of the tail (cutAtUserMessage). */
  replaceTail(rows: readonly ChatMessageRow[]): void {
    this.#tail = [...rows];
  }

  /**
   * After a write to the queue: its length moved by `delta`, and its head is `head` (null: the
   * queue is empty; undefined: not known without a read).
   */
  noteQueueChange(delta: number, head: ChatQueuedMessageRow | null | undefined): void {
    this.#queueHead = head;
    this.#queueLength += delta;
    if (this.#queueLength < 0) throw new StoreInvariantError(`queue length of chat ${this.chatId} went negative`);
  }

  // ---- writing -------------------------------------------------------------------------------

  /** Writes the in-memory row and staged flags now (an intermediate write inside a bundle). */
  async flush(): Promise<void> {
    await this.#write(false);
  }

  /**
   * The commit write, the last statement of the transaction (COMMIT goes out with it when it can).
   * The row must classify as the last landing, the queue must hold the messages the transitions
   * counted, and every CommitCheck must pass; a failure is a rollback, checked before the write or
   * inside it. Buffers the notifications for after COMMIT.
   */
  async commit(notifier: Notifier): Promise<CommittedChat> {
    const expected = this.#expected;
    const landed = classify(this.#chat, this.#queueLength);
    if (expected !== undefined && landed !== expected) {
      throw new StoreInvariantError(`chat ${this.chatId} would land in ${landed}, the table says ${expected}`);
    }
    const committed = await this.#write(true);
    this.#committed = true;
    publishAfterCommit(this.#t, notifier, committed);
    return committed;
  }

  async #write(last: boolean): Promise<CommittedChat> {
    this.#assertOpen();
    const c = this.#chat;
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
    if (this.#title !== undefined) {
      values.push(this.#title.title, this.#title.source);
      sets.push(`title = $${values.length - 1}`, `title_source = $${values.length}`, "title_updated_at = now()");
    }
    if (this.#incrementAttempt) sets.push("generation_attempt = generation_attempt + 1");
    if (this.#grantHistoryEpoch) sets.push("history_version = snapshot_version", "generation_attempt = 0");
    // UpdateChatExecutionState "clears retry_state whenever it writes a status other than running".
    if (c.status !== "running") sets.push("retry_state = NULL");
    else if (this.#retryState !== undefined) {
      values.push(this.#retryState.value === null ? null : pgJson(this.#retryState.value));
      sets.push(`retry_state = $${values.length}::jsonb`);
    }
    let sql = `UPDATE chats SET ${sets.join(", ")} WHERE id = $1 RETURNING *`;
    const heartbeat = this.#heartbeatRunnerId;
    if (heartbeat !== undefined) {
      values.push(heartbeat);
      sql = `WITH ${STAGED_HEARTBEAT} AS (${HEARTBEAT_UPSERT_SQL(values.length)} RETURNING runner_id) ${sql}`;
    }
    const failures = new Map<string, () => Error>();
    if (last) {
      const bind = (value: unknown) => values.push(value);
      sql += `, ${leaseFreshSql("chats", bind(this.#options.staleThresholdMs), heartbeat === undefined ? undefined : STAGED_HEARTBEAT)} AS lease_fresh`;
      const conditions = [...this.#ownConditions(bind), ...this.#commitChecks.flatMap((check) => check.conditions?.(bind) ?? [])];
      for (const [i, condition] of conditions.entries()) {
        const name = `commit_check_${i}`;
        failures.set(name, condition.failure);
        sql += `, chatd_check(${condition.holds}, $${bind(name)}) AS ${name}`;
      }
      for (const check of this.#commitChecks) {
        const columns = check.columns?.(bind);
        if (columns) sql += `, ${columns}`;
      }
    }
    let raw: RawRow | undefined;
    try {
      [raw] = await (last ? this.#t.queryThenCommit(sql, values) : this.#t.query(sql, values));
    } catch (err) {
      const failure = failures.get(failedCommitCheck(err) ?? "");
      throw failure ? failure() : err;
    }
    // Under the row lock the row cannot vanish; were it to, the statement wrote nothing.
    if (raw === undefined) throw new StoreInvariantError(`locked chat ${this.chatId} vanished`);
    if (last) for (const check of this.#commitChecks) check.read?.(raw);
    this.#incrementAttempt = false;
    this.#retryState = undefined;
    this.#grantHistoryEpoch = false;
    this.#heartbeatRunnerId = undefined;
    this.#title = undefined;
    if (!last) {
      this.#chat = chatFromRaw(raw);
      return committedFromRaw({ ...raw, queue_length: this.#queueLength, lease_fresh: false });
    }
    // The queue length is the one counted: the commit write checked it (#ownConditions).
    const committed = committedFromRaw({ ...raw, queue_length: this.#queueLength });
    this.#chat = committed.chat;
    return committed;
  }

  /**
   * What every commit write checks in SQL: the row keeps the status and archived flag it wrote
   * (no trigger rewrites them), and the queue holds the messages the transitions counted. With
   * commit()'s check of the in-memory row, the committed row classifies as the last landing.
   */
  #ownConditions(bind: (value: unknown) => number): CommitCondition[] {
    const counted = this.#queueLength;
    return [
      {
        holds: "chats.status = $2 AND chats.archived = $3",
        failure: () => new StoreInvariantError(`chat ${this.chatId}'s status or archived flag changed in its own write`),
      },
      {
        holds: `${QUEUE_LENGTH_OF_ROW_SQL} = $${bind(counted)}`,
        failure: () => new StoreInvariantError(`chat ${this.chatId} does not have the ${counted} queued messages the transitions counted`),
      },
    ];
  }

  #assertOpen(): void {
    if (this.#committed) throw new StoreInvariantError(`chat ${this.chatId} was already committed in this transaction`);
  }
}

/** The CTE of a write that upserts Acquire's heartbeat (stageHeartbeat). */
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
