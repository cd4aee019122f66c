/**
 * The per-chat handle every transition runs on: the locked chat row and its queue length, the
 * state machine's checks and landings on it, and the writes staged for its one row write. One
 * ChatTx lives inside one transaction. Its other parts each have a file: the row lock and its
 * prefetched reads (row-lock.ts), the row write and the checks it makes at COMMIT
 * (commit-write.ts), the history rows it inserted and its cached tail (inserted-rows.ts).
 */
import {
  classify,
  classifyForTransition,
  isAllowed,
  landing,
  landingColumns,
  mustCancelPendingToolCalls,
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
import { ownershipOf } from "../chatstate/chat-versions";
import { chatFromRaw, type RawRow } from "../db/rows";
import type { ChatQueuedMessageRow, ChatRow, RetryState } from "../db/schema/chats";
import type { StoreTransaction } from "../db/transaction";
import {
  type CommitCheck,
  type CommittedChat,
  committedFromRaw,
  NOTHING_STAGED,
  publishAfterCommit,
  rowWriteStatement,
  runRowWrite,
  type StagedWrites,
} from "./commit-write";
import { StoreInvariantError } from "./errors";
import { answerPendingToolCalls, type HistoryTx, type NewMessage } from "./history";
import { InsertedRows, type ModelChoices } from "./inserted-rows";
import type { Notifier } from "./notifier";
import { type LockedRow, type LockGuard, type LockReads, lockChatRow, lockChatRowIf } from "./row-lock";

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

export interface LandOptions {
  /** The tool-result text when the landing cancels pending dynamic tool calls (misc rule 1). */
  cancelReason?: string;
  /** Overrides the store clock for this landing's timestamps (EnterRequiresAction's deadline). */
  now?: Date;
}

export class ChatTx implements HistoryTx, ModelChoices<NewMessage> {
  readonly #t: StoreTransaction;
  readonly #options: ChatTxOptions;
  #chat: ChatRow;
  #queueLength: number;
  /** The queue head as this transaction left it: null for an empty queue, undefined when not read. */
  #queueHead: ChatQueuedMessageRow | null | undefined;
  /** The history rows it inserted and its cached tail (inserted-rows.ts). */
  readonly inserted: InsertedRows<NewMessage>;
  #staged: StagedWrites = { ...NOTHING_STAGED };
  #commitChecks: CommitCheck[] = [];
  #expected: ExecutionState | undefined;
  #applied: AppliedTransition[] = [];
  #committed = false;

  private constructor(t: StoreTransaction, locked: LockedRow, options: ChatTxOptions) {
    this.#t = t;
    this.#chat = locked.chat;
    this.#queueLength = locked.queueLength;
    this.#queueHead = locked.queueHead;
    this.inserted = new InsertedRows<NewMessage>(t, locked.chat.id, locked.tail, this);
    this.#options = options;
  }

  /** Locks the chat row (row-lock.ts lockChatRow); throws ChatNotFoundError when it does not exist. */
  static async lock(t: StoreTransaction, chatId: string, options: ChatTxOptions, reads: LockReads = { tail: false }): Promise<ChatTx> {
    return new ChatTx(t, await lockChatRow(t, chatId, reads), options);
  }

  /** Locks the chat row after `guard`, in one round trip, when the guard decides to (row-lock.ts lockChatRowIf). */
  static async lockIf(
    t: StoreTransaction,
    chatId: string,
    options: ChatTxOptions,
    reads: LockReads,
    guard: LockGuard,
  ): Promise<{ guardRow: RawRow | undefined; tx: ChatTx | undefined }> {
    const { guardRow, locked } = await lockChatRowIf(t, chatId, reads, guard);
    return { guardRow, tx: locked && new ChatTx(t, locked, options) };
  }

  /** The handle for a chat Create has just inserted in this transaction (empty queue and history). */
  static forCreated(t: StoreTransaction, chat: ChatRow, options: ChatTxOptions): ChatTx {
    return new ChatTx(t, { chat, queueLength: 0, tail: [], queueHead: null }, options);
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
    const landed = {
      transition,
      from,
      to,
      variant,
      now: options.now ?? this.now(),
      requiresActionTimeoutMs: this.#options.requiresActionTimeoutMs,
    };
    this.#chat = { ...this.#chat, ...landingColumns(this.#chat, landed) };
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
    if (this.#staged.retryState !== undefined || this.#staged.grantHistoryEpoch) await this.flush();
    this.#staged.incrementAttempt = true;
  }

  async setRetryState(value: RetryState | null): Promise<void> {
    if (this.#staged.incrementAttempt || this.#staged.grantHistoryEpoch) await this.flush();
    this.#staged.retryState = { value };
  }

  /** RequestCompaction: "advances history_version to the transaction's new snapshot_version, and resets generation_attempt". */
  async grantHistoryEpoch(): Promise<void> {
    if (this.#staged.incrementAttempt || this.#staged.retryState !== undefined) await this.flush();
    this.#staged.grantHistoryEpoch = true;
  }

  /** Called before every chat_messages write: the revision trigger resets generation_attempt. */
  async beforeHistoryWrite(): Promise<void> {
    const { incrementAttempt, retryState, grantHistoryEpoch } = this.#staged;
    if (incrementAttempt || retryState !== undefined || grantHistoryEpoch) await this.flush();
  }

  /**
   * Acquire's initial heartbeat for (chat, runnerId), written by the commit write (or the next
   * flush) in the same statement, which then counts it as the fresh lease it is.
   */
  stageHeartbeat(runnerId: string): void {
    this.#assertOpen();
    this.#staged.heartbeatRunnerId = runnerId;
  }

  /**
   * A title for the chat row's next write (the commit write, or the next flush), in the same
   * statement. Unconditional: the caller has decided, on the locked row, that it applies (the
   * title sources' ranking is src/chats/title.ts's, for writes outside a transition).
   */
  stageTitle(title: string, source: TitleSource): void {
    this.#assertOpen();
    this.#staged.title = { title, source };
  }

  /** Runs `check` in the commit write's statement (CommitCheck). */
  checkAtCommit(check: CommitCheck): void {
    this.#assertOpen();
    this.#commitChecks.push(check);
  }

  // ---- history and queue bookkeeping ---------------------------------------------------------

  /**
   * Each tracks the latest user message that set it (spec "Reasoning effort": "mirroring
   * last_model_config_id"): a model sent alone keeps the effort, an effort sent alone counts.
   */
  noteModelChoice(message: Pick<NewMessage, "role" | "modelOnly" | "modelConfigId" | "reasoningEffort">): void {
    if (message.role !== "user" || message.modelOnly) return;
    if (message.modelConfigId != null) this.#chat = { ...this.#chat, lastModelConfigId: message.modelConfigId };
    if (message.reasoningEffort != null) this.#chat = { ...this.#chat, lastReasoningEffort: message.reasoningEffort };
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

  /** The row write (commit-write.ts); the last one is the commit write, with its checks. */
  async #write(last: boolean): Promise<CommittedChat> {
    this.#assertOpen();
    const final = last
      ? { staleThresholdMs: this.#options.staleThresholdMs, queueLength: this.#queueLength, checks: this.#commitChecks }
      : null;
    const raw = await runRowWrite(this.#t, rowWriteStatement(this.#chat, this.#staged, final), last);
    if (last) for (const check of this.#commitChecks) check.read?.(raw);
    this.#staged = { ...NOTHING_STAGED };
    if (!last) {
      this.#chat = chatFromRaw(raw);
      return committedFromRaw({ ...raw, queue_length: this.#queueLength, lease_fresh: false });
    }
    // The queue length is the one counted: the commit write checked it.
    const committed = committedFromRaw({ ...raw, queue_length: this.#queueLength });
    this.#chat = committed.chat;
    return committed;
  }

  #assertOpen(): void {
    if (this.#committed) throw new StoreInvariantError(`chat ${this.chatId} was already committed in this transaction`);
  }
}
