/**
 * ChatWorker: the spec's chat worker for the one chat a ChatObject serves. Each object instance is
 * a worker with a fresh worker_id (a restart or eviction is a new worker, as a restarted replica).
 * It acquires the chat when woken (admission included), or inside the command on this object that
 * makes the chat runnable (acquire in command, docs/hot-path.md), runs one ChatRunner per
 * acquisition, renews the lease from the object's alarm, and syncs from the database on the same
 * tick so a lost notification is healed. With CHAT_WORKER_ENABLED=false it never acquires: the
 * commands commit without an acquisition, and the chat waits for a worker that does (the API alone).
 */
import type { ChatUpdatePayload } from "../chats/notifier";
import { nextTask } from "../next-task";
import { acquireChat } from "./leases/admission";
import { type AcquiredInCommand, acquireInCommand, type InCommandAdmission, updateAcquiringInCommand } from "./leases/acquire-in-command";
import type { CreateChatInput, CreateChatResult } from "../chats/transitions/create";
import type { Committed, UpdateOptions } from "../chats/store";
import type { ChatTx } from "../chats/chat-tx";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import type { TurnModelRows } from "../model-configs/turn-model-rows";
import { renewHeartbeats } from "./leases/heartbeats";
import { tenantShares } from "./leases/pools";
import { readChatsForSync } from "./leases/sweep";
import { errorText, logger } from "../log/log";
import { eventFromPayload } from "./event";
import { ChatRunner } from "./runner";
import type { RunnerDeps } from "./task-context";

/** What the worker needs of the object that hosts it. */
export interface WorkerHost {
  /** Keeps the object alive for work that outlives the call (waitUntil). */
  keepAlive(work: Promise<unknown>): void;
  /** The worker owns the chat and needs its tick (heartbeat + sync) at this interval. */
  scheduleTick(inMs: number): void;
  /** The chat released its concurrency slot: wake the chats waiting for one. */
  slotReleased(chatId: string, isRoot: boolean): void;
  /** The worker acquired the chat under `workerId`: the host's next instance may reclaim it (docs/deploy.md "Restarts"). */
  leaseTaken(chatId: string, workerId: string): void;
  /** The worker's runner is gone (the lease released or lost): nothing is left to reclaim. */
  leaseEnded(chatId: string, workerId: string): void;
}

export class ChatWorker {
  readonly workerId = crypto.randomUUID();
  #runner: ChatRunner | null = null;
  #acquiring: Promise<void> | null = null;
  #wokenDuringAcquire = false;
  /** The last acquisition failed on an error (not a refusal): the next tick tries again. */
  #retryAcquire = false;
  #isRoot = true;

  /** A worker id whose fresh lease the next acquisition takes over as stale (a restart's reclaim). */
  #reclaimFrom: string | null = null;

  constructor(
    readonly chatId: string,
    private readonly deps: RunnerDeps,
    private readonly host: WorkerHost,
  ) {}

  get runner(): ChatRunner | null {
    return this.#runner;
  }

  /**
   * `chat:ownership`: the chat is runnable and unowned. Acquire it (once at a time). A wake that
   * arrives during an attempt runs one more attempt after it: the attempt in flight may have read
   * the pools before the slot this wake announces was freed, and would otherwise swallow it.
   */
  wake(options: { reclaimFrom?: string } = {}): Promise<void> {
    if (!this.deps.config.CHAT_WORKER_ENABLED) return Promise.resolve();
    if (options.reclaimFrom) this.#reclaimFrom = options.reclaimFrom;
    if (this.#acquiring) {
      this.#wokenDuringAcquire = true;
      return this.#acquiring;
    }
    this.#acquiring = (async () => {
      do {
        this.#wokenDuringAcquire = false;
        try {
          await this.#acquire();
        } catch (err) {
          // Not a refusal: the attempt never decided. No other wake may come before the next
          // sweep (the chat's state did not change), so the object retries on its next tick.
          logger.warn("acquire_failed", { chat_id: this.chatId, error: errorText(err) });
          this.#retryAcquire = true;
          this.host.scheduleTick(this.deps.config.CHAT_HEARTBEAT_INTERVAL_MS);
          return;
        }
      } while (this.#wokenDuringAcquire && !this.#runner);
    })().finally(() => {
      this.#acquiring = null;
    });
    return this.#acquiring;
  }

  /** `chat:update` for this chat. */
  chatUpdated(payload: ChatUpdatePayload): void {
    const runner = this.#runner;
    if (!runner) return;
    runner.process(eventFromPayload(payload));
  }

  /** The alarm: renew the lease, then sync the runner with the database (or retry a failed acquisition). */
  async tick(): Promise<void> {
    const runner = this.#runner;
    if (!runner) {
      if (this.#retryAcquire) {
        this.#retryAcquire = false;
        await this.wake();
      }
      return;
    }
    const { config, store } = this.deps;
    try {
      const result = await renewHeartbeats(store.pool, [{ chatId: this.chatId, runnerId: runner.runnerId }], {
        staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
        tickTimeoutMs: Math.max(1, Math.floor(config.CHAT_STALE_THRESHOLD_MS / 3)),
      });
      if (result.lost.length > 0) {
        // "The runner manager cleans up every runner whose lease was not renewed."
        logger.warn("runner_lease_lost", { chat_id: this.chatId, runner_id: runner.runnerId });
        await this.#cleanup(runner);
        // The lease is stale, so the chat is acquirable: take it over now (a new runner, as any
        // worker would) rather than leave it to the next cron sweep.
        this.host.keepAlive(this.wake());
        return;
      }
    } catch (err) {
      // "A tick that fails or times out renews nothing and cleans up no runners; the next tick retries."
      logger.warn("heartbeat_tick_failed", { chat_id: this.chatId, error: errorText(err) });
    }
    try {
      const [row] = await readChatsForSync(store.pool, [this.chatId]);
      if (row && this.#runner === runner) runner.process(row);
    } catch (err) {
      logger.warn("runner_sync_failed", { chat_id: this.chatId, error: errorText(err) });
    }
    if (this.#runner) this.host.scheduleTick(config.CHAT_HEARTBEAT_INTERVAL_MS);
  }

  async stop(): Promise<void> {
    if (this.#runner) await this.#cleanup(this.#runner);
  }

  async #acquire(): Promise<void> {
    if (this.#runner) return;
    const runnerId = crypto.randomUUID();
    const outcome = await acquireChat(this.deps.store, this.chatId, {
      ...this.#admission(),
      workerId: this.workerId,
      runnerId,
      withHistory: true,
      ...(this.#reclaimFrom ? { reclaimFrom: this.#reclaimFrom } : {}),
    });
    this.#reclaimFrom = null;
    if (outcome.kind !== "acquired") {
      logger.debug("chat_not_acquired", { chat_id: this.chatId, kind: outcome.kind, reason: outcome.reason });
      return;
    }
    this.#start(runnerId, outcome);
  }

  /**
   * Create (ChatStore.create) with the acquisition inside its transaction, after the command's own
   * `afterInsert`: Create takes no pool lock, so this acquires only where the chat's pool has no
   * limit (acquireInCommand); elsewhere the ownership hint after COMMIT wakes the usual acquisition.
   */
  async create(input: CreateChatInput): Promise<Committed<CreateChatResult>> {
    const admission = this.#inCommandAdmission();
    let acquired: AcquiredInCommand | undefined;
    const created = await this.deps.store.create({
      ...input,
      afterInsert: async (tx) => {
        await input.afterInsert?.(tx);
        if (admission) acquired = await acquireInCommand(tx, admission);
      },
    });
    if (acquired) this.host.keepAlive(this.#startAfterAnswer(acquired, created.chat));
    return created;
  }

  /**
   * ChatStore.update for a command that may start a turn (SendMessage, EditMessage), acquiring the
   * chat in the same transaction when admission allows it there (updateAcquiringInCommand), so the
   * runner starts right after COMMIT without an acquisition of its own.
   */
  async update<T>(chatId: string, fn: (tx: ChatTx) => Promise<T>, options: UpdateOptions = {}): Promise<Committed<T>> {
    if (chatId !== this.chatId) throw new Error(`chat ${this.chatId}'s worker asked to update chat ${chatId}`);
    const committed = await updateAcquiringInCommand(this.deps.store, chatId, this.#inCommandAdmission(), fn, options);
    if (committed.acquired) this.host.keepAlive(this.#startAfterAnswer(committed.acquired, committed.chat));
    return committed;
  }

  /**
   * The admission an acquisition inside a command applies; none with the worker off, or while this
   * worker has a runner or an acquisition in flight: those take their usual path, so the pool's
   * lock is not worth trying.
   */
  #inCommandAdmission(): InCommandAdmission | null {
    if (!this.deps.config.CHAT_WORKER_ENABLED || this.#runner || this.#acquiring) return null;
    return { ...this.#admission(), workerId: this.workerId, runnerId: crypto.randomUUID() };
  }

  /**
   * The runner of an acquisition a command committed, started on the next turn of the event loop:
   * its first task's synchronous start (the decision, the prompt) would otherwise delay the
   * command's answer, which is still on its way back. The commit's chat:update that arrived before
   * it is not needed: the committed row is the runner's first event.
   */
  async #startAfterAnswer(acquired: AcquiredInCommand, chat: ChatRow): Promise<void> {
    await nextTask();
    this.#start(acquired.runnerId, { takenOver: false, ...acquired.startingRead(chat) });
  }

  #admission() {
    const { config } = this.deps;
    return {
      limits: { root: config.CHAT_ROOT_CONCURRENCY, subagent: config.CHAT_SUBAGENT_CONCURRENCY },
      shares: tenantShares(config),
      staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
    };
  }

  /** A committed acquisition for `runnerId`: its runner, its ticks, and the committed row as the runner's first event. */
  #start(
    runnerId: string,
    acquired: { chat: ChatRow; takenOver: boolean; history?: ChatMessageRow[]; models?: TurnModelRows; recordedAttempt?: number },
  ): void {
    if (this.#runner) {
      // The database gives a chat one owner; two runners here would mean it did not.
      logger.error("runner_already_running", { chat_id: this.chatId, runner_id: runnerId, running: this.#runner.runnerId });
      return;
    }
    const { chat, takenOver, history, models, recordedAttempt } = acquired;
    this.#isRoot = chat.parentChatId === null;
    const runner = new ChatRunner(
      this.chatId,
      this.workerId,
      runnerId,
      this.deps,
      (r) => void this.#cleanup(r),
      (work) => this.host.keepAlive(work),
    );
    runner.acquired({
      chatKind: this.#isRoot ? "root" : "subagent",
      takenOver,
      startingRead: history && {
        chat,
        history,
        ...(models ? { models } : {}),
        ...(recordedAttempt === undefined ? {} : { recordedAttempt }),
      },
    });
    this.#runner = runner;
    logger.info("chat_acquired", { chat_id: this.chatId, worker_id: this.workerId, runner_id: runnerId, taken_over: takenOver });
    this.host.leaseTaken(this.chatId, this.workerId);
    this.host.scheduleTick(this.deps.config.CHAT_HEARTBEAT_INTERVAL_MS);
    // Bootstrap: notifications already reach us; the committed row is the first event.
    runner.process(chat);
  }

  async #cleanup(runner: ChatRunner): Promise<void> {
    if (this.#runner !== runner) return;
    this.#runner = null;
    this.host.keepAlive(runner.stop());
    this.host.leaseEnded(this.chatId, this.workerId);
    this.host.slotReleased(this.chatId, this.#isRoot);
  }
}
