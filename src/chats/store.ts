/**
 * ChatStore: the one owner of every transaction that changes a chat's execution state. Each of
 * them begins, takes its locks, commits and publishes here; the transitions (src/chats/transitions)
 * only apply themselves to the handle the store gives them and never open a transaction.
 *
 * `update(chatId, fn)` is the spec's transaction: BEGIN; lock the chat row and advance
 * snapshot_version once, before any other write; count the queue; run `fn`, which applies one or
 * more transitions on the ChatTx; write the chats row once and read the committed values back;
 * COMMIT; then publish `chat:update` (and `chat:ownership` when the chat is runnable without a
 * fresh lease). Any error rolls back, the snapshot bump included, and publishes nothing. The chat
 * commands, the runner's fenced writes (src/chat-worker/fenced-db.ts) and the tests call it with the
 * transition they apply and the prefetch that transition declares (transitions/transition.ts).
 *
 * The other chat transactions are variations on it, each with its own production callers:
 * - `create`: Create has no row to lock first (the chat commands' POST /chats);
 * - `setArchived`: the family archive locks a root and its descendants (PATCH archived and the
 *   auto-archive loop);
 * - `updateGuarded`: a guard statement sent with the row lock, which may answer without taking
 *   it (the worker's acquisition with admission, and a send that tries the pool's lock to acquire
 *   in its own transaction: src/chat-worker/leases/admission.ts, src/chat-worker/chat-worker.ts);
 * - `recordOwnedAttempt`: RecordGenerationAttempt as one statement, for the runner that owns the
 *   chat (the generation and compaction tasks, through src/chat-worker/fenced-db.ts).
 * `transaction` is a bare transaction on the same pool for reads and writes that are no
 * transition (a fenced read that waited for a commit, purge).
 *
 * The chat commands' reads and metadata writes outside any transition (no lock, no snapshot bump)
 * are store methods too, over the named functions of queries.ts, title.ts and files.ts, so a
 * command never reaches the pool.
 */
import type { Pool } from "@neondatabase/serverless";
import { ChatNotFoundError, REQUIRES_ACTION_TIMEOUT_MS, type ClassifiedState, type TitleSource } from "../chatstate/index";
import { ChatTx, type AppliedTransition, type ChatTxOptions } from "./chat-tx";
import { committedFromRaw, publishAfterCommit } from "./commit-write";
import { QUEUE_LENGTH_SQL, type LockGuard, type LockReads, type TailPrefetch } from "./row-lock";
import type { RawRow } from "../db/rows";
import { StoreInvariantError } from "./errors";
import { type Resolved, resolveInserted } from "./inserted-refs";
import { filesForAttachment } from "../files/files";
import { NOOP_NOTIFIER, type Notifier } from "./notifier";
import {
  getChat,
  listArchiveScope,
  listMessagePage,
  listMessages,
  listQueue,
  readChatIdentity,
  updateChatMetadata,
  type ChatIdentity,
  type ChatMetadataFields,
} from "./queries";
import type { ChatMessageRow, ChatQueuedMessageRow, ChatRow } from "../db/schema/chats";
import type { ChatFileRow } from "../db/schema/files";
import { writeTitle } from "./title";
import { isDeadlock } from "../db/pg-errors";
import { inTransaction, runTransaction, type StoreTransaction, type TransactionObserver } from "../db/transaction";
import { createChat, insertChat, type CreateChatInput, type CreateChatResult } from "./transitions/create";
import { ownedAttemptStatement, type OwnedRunningChat } from "./transitions/generation-attempts";
import {
  isChildChat,
  lockFamily,
  setArchived,
  setFamilyArchived,
  type FamilyArchiveOptions,
  type FamilyArchiveResult,
} from "./transitions/set-archived";

/** "its heartbeat is expired (older than 30 seconds)" */
export const DEFAULT_STALE_THRESHOLD_MS = 30_000;
/** Per chat; a queueing send beyond it fails with QueueFullError (Coder's chatd uses 20). */
export const DEFAULT_MAX_QUEUE_LENGTH = 20;

export interface ChatStoreOptions extends Partial<ChatTxOptions> {
  notifier?: Notifier;
  /** Sees every finished transaction (statement counts in tests). */
  observe?: TransactionObserver;
}

/**
 * What `update` returns: the callback's value and the committed chat. The value is resolved after
 * COMMIT: each reference to rows the transaction inserted is those rows (inserted-refs.ts).
 */
export interface Committed<T> {
  readonly value: Resolved<T>;
  readonly chat: ChatRow;
  readonly state: ClassifiedState;
  readonly queueLength: number;
  /** The transitions applied, in order (an unowned Interrupt lists Interrupt, FinishInterruption). */
  readonly applied: readonly AppliedTransition[];
  /** Statements run in the transaction, BEGIN and COMMIT excluded; all of them under the row lock. */
  readonly statements: number;
}

export interface UpdateOptions {
  /** Read the active history tail together with the queue count; the transition declares it (transitions/transition.ts). */
  prefetchTail?: TailPrefetch;
  /** Read the queue head with the row lock, for a transaction that may promote it (FinishTurn after a step). */
  prefetchQueueHead?: boolean;
  /** A heartbeat older than this is stale for this transaction's ownership hint, when the caller's threshold is not the store's (the worker's). */
  staleThresholdMs?: number;
}

const lockReads = (options: UpdateOptions): LockReads => ({
  tail: options.prefetchTail ?? false,
  queueHead: options.prefetchQueueHead ?? false,
});

/** What the guard of `updateGuarded` answers to end the transaction without locking. */
export interface Answered<A> {
  readonly answer: A;
}

/** Tries of a family archive that Postgres aborts as a deadlock. */
const FAMILY_DEADLOCK_ATTEMPTS = 3;

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
    return this.transaction((t) => this.#lockApplyCommit(t, chatId, fn, options));
  }

  /**
   * `update` with a guard statement first, sent with the row lock in one round trip
   * (ChatTx.lockIf): the guard may take locks that must come first (admission's pool lock: pool
   * first, then row) and decides in SQL whether the row is locked at all (lockRowIfSql). `answer`
   * reads the guard's row and answers when the guard decided against the lock, which ends the
   * transaction with nothing written; it must decide as the SQL did.
   */
  updateGuarded<A, T>(
    chatId: string,
    guard: LockGuard & { answer(row: RawRow | undefined): Answered<A> | undefined },
    fn: (tx: ChatTx) => Promise<T>,
    options: UpdateOptions = {},
  ): Promise<Answered<A> | Committed<T>> {
    return this.transaction(async (t) => {
      const { guardRow, tx } = await ChatTx.lockIf(t, chatId, this.#txOptions(options), lockReads(options), guard);
      const answered = guard.answer(guardRow);
      if (answered) {
        if (tx) throw new StoreInvariantError(`chat ${chatId} was locked by a guard that answered without it`);
        return answered;
      }
      // The guard let the lock through, and the row was gone by then.
      if (!tx) throw new ChatNotFoundError(chatId);
      return this.#commit(t, tx, await fn(tx));
    });
  }

  /**
   * RecordGenerationAttempt on the chat `owned` describes, in one round trip: BEGIN, the one
   * statement of transitions/generation-attempts.ts, COMMIT. Undefined, with nothing written, when
   * the row is not that running chat; the caller then applies the transition through `update`,
   * whose checks say why. When something committed on the chat while the statement waited for the
   * lock, the queue is counted again after the commit (the landing is R0 or R1 either way).
   */
  async recordOwnedAttempt(owned: OwnedRunningChat): Promise<Committed<void> | undefined> {
    const { text, values } = ownedAttemptStatement(owned, this.options.staleThresholdMs);
    const found = await this.transaction(async (t) => {
      const [raw] = await t.queryThenCommit(text, values);
      if (raw === undefined) return undefined;
      const committed = committedFromRaw(raw);
      publishAfterCommit(t, this.notifier, committed);
      return { raw, committed, statements: t.statements };
    });
    if (found === undefined) return undefined;
    const committed =
      found.raw.unchanged === true
        ? found.committed
        : committedFromRaw({ ...found.raw, queue_length: await this.#queueLength(owned.chatId) });
    const landed = committed.state;
    if (landed !== "R0" && landed !== "R1")
      throw new StoreInvariantError(`chat ${owned.chatId} recorded an attempt and landed in ${landed}`);
    return {
      value: undefined,
      chat: committed.chat,
      state: committed.state,
      queueLength: committed.queueLength,
      applied: [{ transition: "RecordGenerationAttempt", from: landed, to: landed }],
      statements: found.statements,
    };
  }

  async #queueLength(chatId: string): Promise<number> {
    const { rows } = await this.pool.query<{ queue_length: number }>(QUEUE_LENGTH_SQL, [chatId]);
    return rows[0]?.queue_length ?? 0;
  }

  /** Create: inserts the chat and applies the transition on it, in one transaction (transitions/create.ts). */
  create(input: CreateChatInput): Promise<Committed<CreateChatResult>> {
    return this.transaction(async (t) => {
      const tx = ChatTx.forCreated(t, await insertChat(t, input), this.options);
      return this.#commit(t, tx, await createChat(tx, input));
    });
  }

  /**
   * PATCH archived: the family for a root chat (all-or-nothing), the chat alone for a child
   * (transitions/set-archived.ts). `options.recheck` is the auto-archive loop's, for roots only.
   */
  async setArchived(chatId: string, archived: boolean, options: FamilyArchiveOptions = {}): Promise<FamilyArchiveResult> {
    if (await isChildChat(this.pool, chatId)) {
      if (options.recheck) throw new StoreInvariantError(`a family recheck was given for child chat ${chatId}`);
      const committed = await this.update(chatId, (tx) => setArchived(tx, { archived }));
      return { chats: [committed.chat], statements: committed.statements, skipped: false };
    }
    // The family's row locks can meet a member's own transaction in the other order, and Postgres
    // then aborts one of the two as a deadlock. Ours rolled back whole and published nothing, so it
    // is run again (seen while archiving a family whose members were being interrupted).
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction(async (t) => {
          const family = await lockFamily(t, chatId);
          if (options.recheck && !(await options.recheck(t, family))) return { chats: [], statements: t.statements, skipped: true };
          const changed = await setFamilyArchived(t, family, archived, this.options.staleThresholdMs);
          for (const committed of changed) publishAfterCommit(t, this.notifier, committed);
          return { chats: changed.map((c) => c.chat), statements: t.statements, skipped: false };
        });
      } catch (err) {
        if (attempt >= FAMILY_DEADLOCK_ATTEMPTS || !isDeadlock(err)) throw err;
      }
    }
  }

  // ---- reads and metadata writes outside transitions, for the chat commands -----------------

  chat(chatId: string): Promise<ChatRow | undefined> {
    return getChat(this.pool, chatId);
  }

  /**
   * The chat's messages and queue, read in one snapshot so they agree with each other, after
   * `check` accepted the chat as that snapshot has it (an owner check throws before the reads).
   * Without `page`, the whole shown history; with it, the newest `limit` messages whose ids are
   * below `beforeId` (a cursor: it need not name a message that exists).
   */
  messagesAndQueue(
    chatId: string,
    check: (chat: ChatRow | undefined) => void,
    page?: { beforeId?: number | undefined; limit: number },
  ): Promise<{ messages: ChatMessageRow[]; queue: ChatQueuedMessageRow[]; hasMore: boolean }> {
    return inTransaction(this.pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", async (client) => {
      check(await getChat(client, chatId));
      if (page === undefined)
        return { messages: await listMessages(client, chatId), queue: await listQueue(client, chatId), hasMore: false };
      const { messages, hasMore } = await listMessagePage(client, chatId, {
        limit: page.limit,
        ...(page.beforeId === undefined ? {} : { beforeId: page.beforeId }),
      });
      return { messages, queue: await listQueue(client, chatId), hasMore };
    });
  }

  /** Organization, owner, parent and snapshot version (src/chats/queries.ts readChatIdentity). */
  identity(chatId: string): Promise<ChatIdentity | undefined> {
    return readChatIdentity(this.pool, chatId);
  }

  /** The chats an archive of `chatId` moves, with their queue lengths (src/chats/queries.ts listArchiveScope). */
  archiveScope(chatId: string): Promise<{ chat: ChatRow; queueLength: number }[]> {
    return listArchiveScope(this.pool, chatId);
  }

  /** A title write: metadata, ranked by source (src/chats/title.ts). */
  writeTitle(chatId: string, title: string, source: TitleSource): Promise<{ applied: boolean; chat: ChatRow }> {
    return writeTitle(this.pool, chatId, title, source);
  }

  /** Labels, pin order and MCP servers: metadata (src/chats/queries.ts updateChatMetadata). */
  updateMetadata(chatId: string, fields: ChatMetadataFields): Promise<ChatRow | undefined> {
    return updateChatMetadata(this.pool, chatId, fields);
  }

  /** The uploads among `fileIds` that `ownerId` may attach in `organizationId` (src/files/files.ts). */
  attachableFiles(fileIds: readonly string[], ownerId: string, organizationId: string): Promise<Map<string, ChatFileRow>> {
    return filesForAttachment(this.pool, fileIds, ownerId, organizationId);
  }

  async #lockApplyCommit<T>(
    t: StoreTransaction,
    chatId: string,
    fn: (tx: ChatTx) => Promise<T>,
    options: UpdateOptions,
  ): Promise<Committed<T>> {
    const tx = await ChatTx.lock(t, chatId, this.#txOptions(options), lockReads(options));
    return this.#commit(t, tx, await fn(tx));
  }

  #txOptions(options: UpdateOptions): ChatTxOptions {
    return options.staleThresholdMs === undefined ? this.options : { ...this.options, staleThresholdMs: options.staleThresholdMs };
  }

  /** The commit write, the notifications buffered for after COMMIT, and what `update` returns. */
  async #commit<T>(t: StoreTransaction, tx: ChatTx, value: T): Promise<Committed<T>> {
    const committed = await tx.commit(this.notifier);
    return {
      value: resolveInserted(value, tx.inserted.rows, tx.chatId),
      chat: committed.chat,
      state: committed.state,
      queueLength: committed.queueLength,
      applied: tx.applied,
      statements: t.statements,
    };
  }
}
