/**
 * ChatStore: the one owner of every transaction that changes a chat's execution state.
 *
 * `update(chatId, fn)` is the spec's transaction: BEGIN; lock the chat row and advance
 * snapshot_version once, before any other write; count the queue; run `fn`, which applies one or
 * more transitions (src/db/transitions); write the chats row once and read the committed values
 * back; COMMIT; then publish `chat:update` (and `chat:ownership` when the chat is runnable without
 * a fresh lease). Any error rolls back, the snapshot bump included, and publishes nothing.
 * Create and the family archive have no single row to lock first; they have their own paths
 * (transitions/create.ts, transitions/set-archived.ts) on the same transaction runner.
 *
 * The per-transition methods are one-liners over `update`, with the tail prefetch each one wants.
 */
import type { Pool } from "@neondatabase/serverless";
import { REQUIRES_ACTION_TIMEOUT_MS, type ClassifiedState } from "../chatstate/index";
import { ChatTx, type AppliedTransition, type ChatTxOptions, type TailPrefetch } from "./chat-tx";
import { NOOP_NOTIFIER, type Notifier } from "./notifier";
import type { ChatRow, LastErrorDetail, RetryState } from "./schema/chats";
import { runTransaction, type StoreTransaction, type TransactionObserver } from "./transaction";
import { acquire, abandon } from "./transitions/ownership";
import {
  cancelRequiresAction,
  completeRequiresAction,
  enterRequiresAction,
  type CompleteRequiresActionInput,
} from "./transitions/requires-action";
import { clearContext } from "./transitions/clear-context";
import { commitStep, type CommitStepInput } from "./transitions/commit-step";
import { createChat, type CreateChatInput, type CreateChatResult } from "./transitions/create";
import { editMessage, type EditMessageInput } from "./transitions/edit-message";
import { finishError } from "./transitions/finish-error";
import { finishInterruption, type FinishInterruptionInput } from "./transitions/finish-interruption";
import { finishTurn } from "./transitions/finish-turn";
import { recordGenerationAttempt, recordRetryState } from "./transitions/generation-attempts";
import { interrupt } from "./transitions/interrupt";
import { deleteQueuedMessage, promoteQueuedMessage } from "./transitions/queued-messages";
import { reconcileInvalidState } from "./transitions/reconcile-invalid-state";
import { requestCompaction } from "./transitions/request-compaction";
import { sendMessage, type SendMessageInput } from "./transitions/send-message";
import { setArchived, setFamilyArchived } from "./transitions/set-archived";

/** "its heartbeat is expired (older than 30 seconds)" */
export const DEFAULT_STALE_THRESHOLD_MS = 30_000;
/** Per chat; a queueing send beyond it fails with QueueFullError (Coder's chatd uses 20). */
export const DEFAULT_MAX_QUEUE_LENGTH = 20;

export interface ChatStoreOptions extends Partial<ChatTxOptions> {
  notifier?: Notifier;
  /** Sees every finished transaction (statement counts in tests). */
  observe?: TransactionObserver;
}

/** What `update` returns: the callback's value and the committed chat. */
export interface Committed<T> {
  readonly value: T;
  readonly chat: ChatRow;
  readonly state: ClassifiedState;
  readonly queueLength: number;
  /** The transitions applied, in order (an unowned Interrupt lists Interrupt, FinishInterruption). */
  readonly applied: readonly AppliedTransition[];
  /** Statements run in the transaction, BEGIN and COMMIT excluded; all of them under the row lock. */
  readonly statements: number;
}

export interface UpdateOptions {
  /** Read the active history tail together with the queue count (saves a statement when needed). */
  prefetchTail?: TailPrefetch;
}

export class ChatStore {
  readonly options: ChatTxOptions;
  readonly notifier: Notifier;
  readonly #observe: TransactionObserver | undefined;

  constructor(
    readonly pool: Pool,
    options: ChatStoreOptions = {},
  ) {
    this.notifier = options.notifier ?? NOOP_NOTIFIER;
    this.#observe = options.observe;
    this.options = {
      now: options.now ?? (() => new Date()),
      staleThresholdMs: options.staleThresholdMs ?? DEFAULT_STALE_THRESHOLD_MS,
      requiresActionTimeoutMs: options.requiresActionTimeoutMs ?? REQUIRES_ACTION_TIMEOUT_MS,
      maxQueueLength: options.maxQueueLength ?? DEFAULT_MAX_QUEUE_LENGTH,
    };
  }

  /** A bare transaction on this store's pool, observer and after-commit semantics included. */
  transaction<T>(fn: (t: StoreTransaction) => Promise<T>): Promise<T> {
    return runTransaction(this.pool, fn, this.#observe);
  }

  /** Applies `fn`'s transitions to one chat in one transaction; see the file header. */
  update<T>(chatId: string, fn: (tx: ChatTx) => Promise<T>, options: UpdateOptions = {}): Promise<Committed<T>> {
    return this.transaction(async (t) => {
      const tx = await ChatTx.lock(t, chatId, this.options, options.prefetchTail ?? false);
      const value = await fn(tx);
      const committed = await tx.commit(this.notifier);
      return {
        value,
        chat: committed.chat,
        state: committed.state,
        queueLength: committed.queueLength,
        applied: tx.applied,
        statements: t.statements,
      };
    });
  }

  // ---- transitions used by the HTTP endpoints -------------------------------------------------

  create(input: CreateChatInput): Promise<Committed<CreateChatResult>> {
    return createChat(this, input);
  }

  /** PATCH archived: the family for a root chat (all-or-nothing), the chat alone for a child. */
  setArchived(chatId: string, archived: boolean) {
    return setFamilyArchived(this, chatId, archived);
  }

  /** SetArchived on one chat only (a bundle building block; the endpoint uses setArchived). */
  setArchivedSingle(chatId: string, archived: boolean) {
    return this.update(chatId, (tx) => setArchived(tx, { archived }));
  }

  sendMessage(chatId: string, input: SendMessageInput) {
    return this.update(chatId, (tx) => sendMessage(tx, input), { prefetchTail: sendMessage.prefetchTail(input) });
  }

  editMessage(chatId: string, input: EditMessageInput) {
    return this.update(chatId, (tx) => editMessage(tx, input));
  }

  deleteQueuedMessage(chatId: string, queuedMessageId: string) {
    return this.update(chatId, (tx) => deleteQueuedMessage(tx, { queuedMessageId }));
  }

  promoteQueuedMessage(chatId: string, queuedMessageId: string) {
    return this.update(chatId, (tx) => promoteQueuedMessage(tx, { queuedMessageId }), { prefetchTail: promoteQueuedMessage.prefetchTail });
  }

  interrupt(chatId: string, input: { reason?: string } = {}) {
    return this.update(chatId, (tx) => interrupt(tx, input), { prefetchTail: interrupt.prefetchTail });
  }

  completeRequiresAction(chatId: string, input: CompleteRequiresActionInput) {
    return this.update(chatId, (tx) => completeRequiresAction(tx, input), { prefetchTail: true });
  }

  requestCompaction(chatId: string, input: { now?: Date } = {}) {
    return this.update(chatId, (tx) => requestCompaction(tx, input));
  }

  clearContext(chatId: string, input: { createdBy?: string | null; toolCallId?: string } = {}) {
    return this.update(chatId, (tx) => clearContext(tx, input), { prefetchTail: true });
  }

  reconcileInvalidState(chatId: string) {
    return this.update(chatId, (tx) => reconcileInvalidState(tx), { prefetchTail: true });
  }

  // ---- transitions used by the chat worker ----------------------------------------------------

  acquire(chatId: string, input: { workerId: string; runnerId: string }) {
    return this.update(chatId, (tx) => acquire(tx, input));
  }

  abandon(chatId: string) {
    return this.update(chatId, (tx) => abandon(tx));
  }

  commitStep(chatId: string, input: CommitStepInput) {
    return this.update(chatId, (tx) => commitStep(tx, input));
  }

  enterRequiresAction(chatId: string, input: { now?: Date } = {}) {
    return this.update(chatId, (tx) => enterRequiresAction(tx, input), { prefetchTail: true });
  }

  finishInterruption(chatId: string, input: FinishInterruptionInput = {}) {
    return this.update(chatId, (tx) => finishInterruption(tx, input), { prefetchTail: true });
  }

  recordGenerationAttempt(chatId: string) {
    return this.update(chatId, (tx) => recordGenerationAttempt(tx));
  }

  recordRetryState(chatId: string, retryState: RetryState) {
    return this.update(chatId, (tx) => recordRetryState(tx, { retryState }));
  }

  finishTurn(chatId: string) {
    return this.update(chatId, (tx) => finishTurn(tx), { prefetchTail: true });
  }

  finishError(chatId: string, error: string, detail: LastErrorDetail | null = null) {
    return this.update(chatId, (tx) => finishError(tx, { error, detail }));
  }

  cancelRequiresAction(chatId: string, input: { reason?: string } = {}) {
    return this.update(chatId, (tx) => cancelRequiresAction(tx, input), { prefetchTail: true });
  }
}
