/**
 * ChatObject: one Durable Object per chat (`idFromName(chatId)`). A thin adapter from platform
 * calls (RPC, fetch, alarm, WebSocket) to the code in src/. It holds only what the spec keeps in
 * memory; Postgres holds everything committed.
 *
 * Chat mutations arrive here as RPC calls from the Worker's routes, so the object sees every change
 * to its chat first: each runs one chat command (src/chat-commands) on the object's store, whose
 * notifier delivers the post-commit notification in memory.
 */
import { DurableObject } from "cloudflare:workers";
import type { Pool } from "@neondatabase/serverless";
import type { CommandContext } from "../src/chat-commands/context";
import {
  clearCommand,
  compactCommand,
  interruptCommand,
  reconcileCommand,
  submitToolResultsCommand,
  type ChatCommand,
} from "../src/chat-commands/control";
import { type CreateChatCommand, createChatCommand } from "../src/chat-commands/create-chat";
import { type EditMessageCommand, editMessageCommand, type SendMessageCommand, sendMessageCommand } from "../src/chat-commands/messages";
import { outcome } from "../src/chat-commands/outcome";
import { deleteQueuedCommand, promoteQueuedCommand, type QueueCommand } from "../src/chat-commands/queue";
import { type UpdateChatCommand, updateChatCommand } from "../src/chat-commands/update-chat";
import { ObjectNotifier } from "../src/chat-object/object-notifier";
import { CHAT_ID_HEADER } from "../src/chat-object/headers";
import { PartsSession } from "../src/chat-object/parts-socket";
import { configFromEnv } from "../src/config/env";
import { createDb, createPool } from "../src/db/client";
import type { ChatUpdatePayload, OwnershipHint } from "../src/db/notifier";
import { ChatStore } from "../src/db/store";
import type { ToolResultInput } from "../src/db/transitions/requires-action";
import { logger, setLogLevel } from "../src/log";
import type { StreamPart } from "../src/llm/stream-part";
import { ChatWorker } from "../src/runner/chat-worker";
import { abortableSleep } from "../src/runner/task-context";
import { findWaitingForSlot } from "../src/db/worker/sweep";
import { PartBuffer } from "../src/stream/part-buffer";

/** A few connections are plenty: one object serializes its chat's work. */
const POOL_SIZE = 4;

export class ChatObject extends DurableObject<Env> {
  #pool: Pool | undefined;
  #context: CommandContext | undefined;
  /** The chat this object serves, learned from the first call that names it. */
  #chatId: string | undefined;
  /** The highest snapshot_version seen for this chat (the spec's receiver watermark). */
  #watermark = 0;
  /** Streaming parts of this chat's model calls (the spec's message part buffer). */
  readonly parts = new PartBuffer<StreamPart>({ now: () => Date.now(), requestTick: (at) => this.#wantAlarm(at) });
  #worker: ChatWorker | undefined;
  /** When the worker's next heartbeat/sync tick is due (0: none). */
  #workerTickAt = 0;

  /** The pool lives as long as the object: warm connections make transitions fast. */
  protected pool(): Pool {
    if (!this.#pool) {
      const config = configFromEnv(this.env);
      setLogLevel(config.LOG_LEVEL);
      this.#pool = createPool({ databaseUrl: config.DATABASE_URL, wsProxy: config.NEON_WS_PROXY, max: POOL_SIZE });
    }
    return this.#pool;
  }

  protected context(chatId: string): CommandContext {
    this.#chatId ??= chatId;
    if (!this.#context) {
      const config = configFromEnv(this.env);
      const pool = this.pool();
      const notifier = new ObjectNotifier(
        () => this.#chatId,
        { chatUpdated: (p) => this.chatUpdated(p), ownershipHint: (h) => this.ownershipHint(h) },
        { notify: (id, p) => this.forward(id, (stub) => stub.notify(p)), wake: (id, h) => this.forward(id, (stub) => stub.wake(h)) },
      );
      const store = new ChatStore(pool, {
        notifier,
        staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
        requiresActionTimeoutMs: config.CHAT_REQUIRES_ACTION_TIMEOUT_MS,
        maxQueueLength: config.CHAT_MAX_QUEUED_MESSAGES,
      });
      const evictFiles = (keys: readonly string[]) => {
        this.ctx.waitUntil(
          this.env.FILES.delete([...keys]).catch((err: unknown) => logger.warn("file_evict_failed", { error: String(err) })),
        );
      };
      this.#context = { store, db: createDb(pool), config, evictFiles };
    }
    return this.#context;
  }

  // ---- chat commands (called by the Worker's routes) ------------------------------------------

  create(cmd: CreateChatCommand) {
    return outcome("create", () => createChatCommand(this.context(cmd.chatId), cmd));
  }

  sendMessage(cmd: SendMessageCommand) {
    return outcome("send_message", () => sendMessageCommand(this.context(cmd.chatId), cmd));
  }

  editMessage(cmd: EditMessageCommand) {
    return outcome("edit_message", () => editMessageCommand(this.context(cmd.chatId), cmd));
  }

  deleteQueued(cmd: QueueCommand) {
    return outcome("delete_queued", () => deleteQueuedCommand(this.context(cmd.chatId), cmd));
  }

  promoteQueued(cmd: QueueCommand) {
    return outcome("promote_queued", () => promoteQueuedCommand(this.context(cmd.chatId), cmd));
  }

  interrupt(cmd: ChatCommand) {
    return outcome("interrupt", () => interruptCommand(this.context(cmd.chatId), cmd));
  }

  submitToolResults(cmd: ChatCommand & { results: ToolResultInput[] }) {
    return outcome("tool_results", () => submitToolResultsCommand(this.context(cmd.chatId), cmd));
  }

  compact(cmd: ChatCommand) {
    return outcome("compact", () => compactCommand(this.context(cmd.chatId), cmd));
  }

  clear(cmd: ChatCommand) {
    return outcome("clear", () => clearCommand(this.context(cmd.chatId), cmd));
  }

  reconcile(cmd: ChatCommand) {
    return outcome("reconcile", () => reconcileCommand(this.context(cmd.chatId), cmd));
  }

  update(cmd: UpdateChatCommand) {
    return outcome("update_chat", () => updateChatCommand(this.context(cmd.chatId), cmd));
  }

  // ---- the chat worker (spec "Chat worker"), driven by notifications and the alarm -------------

  /** Disabled by CHAT_WORKER_ENABLED=false: the API alone (tests that need chats to stay put). */
  protected worker(): ChatWorker | undefined {
    const chatId = this.#chatId;
    if (!chatId) return undefined;
    if (!this.#worker) {
      const { store, db, config } = this.context(chatId);
      if (!config.CHAT_WORKER_ENABLED) return undefined;
      this.#worker = new ChatWorker(
        chatId,
        { store, db, config, parts: this.parts, localTools: new Map(), now: () => new Date(), sleep: abortableSleep },
        {
          keepAlive: (work) => this.ctx.waitUntil(work.catch(() => {})),
          scheduleTick: (inMs) => {
            this.#workerTickAt = Date.now() + inMs;
            this.#wantAlarm(this.#workerTickAt);
          },
          slotReleased: (_chatId, isRoot) => this.ctx.waitUntil(this.#wakeWaiting(isRoot)),
        },
      );
    }
    return this.#worker;
  }

  /** A slot was released: "wakes the oldest waiting chats at once". */
  async #wakeWaiting(isRoot: boolean): Promise<void> {
    const config = configFromEnv(this.env);
    try {
      const ids = await findWaitingForSlot(this.pool(), {
        pool: isRoot ? "root" : "subagent",
        limit: 5,
        staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
      });
      for (const id of ids) if (id !== this.#chatId) this.forward(id, (stub) => stub.wake({ chat_id: id, snapshot_version: 0 }));
    } catch (err) {
      logger.warn("wake_waiting_failed", { error: String(err) });
    }
  }

  /** One alarm multiplexes every timer: the worker's tick and the part buffer's deadlines. */
  #wantAlarm(at: number): void {
    this.ctx.waitUntil(
      (async () => {
        const current = await this.ctx.storage.getAlarm();
        if (current === null || at < current) await this.ctx.storage.setAlarm(at);
      })(),
    );
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    if (this.#workerTickAt > 0 && this.#workerTickAt <= now) {
      this.#workerTickAt = 0;
      await this.#worker?.tick();
    }
    const next = [this.parts.tick(now).nextDeadline, this.#workerTickAt || null].filter((t): t is number => t !== null);
    if (next.length > 0) await this.ctx.storage.setAlarm(Math.min(...next));
  }

  // ---- WebSockets ------------------------------------------------------------------------------

  /** The Worker forwards the authorized upgrade here; the chat id comes in a header it sets. */
  override async fetch(request: Request): Promise<Response> {
    const chatId = request.headers.get(CHAT_ID_HEADER);
    if (!chatId || request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
      return new Response("expected a WebSocket upgrade", { status: 426 });
    this.#chatId ??= chatId;
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    // Not hibernated: a parts subscription lives in this object's memory, as the part buffer does.
    server.accept();
    const session = new PartsSession(chatId, this.parts, {
      send: (t) => server.send(t),
      close: (code, reason) => server.close(code, reason),
    });
    server.addEventListener("message", (event) =>
      session.onMessage(typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data)),
    );
    server.addEventListener("close", () => session.stop());
    server.addEventListener("error", () => session.stop());
    return new Response(null, { status: 101, webSocket: client });
  }

  // ---- notifications (the spec's pubsub, from transitions run elsewhere) ----------------------

  /** `chat:update` for this object's chat, from a transition another object or the cron ran. */
  notify(payload: ChatUpdatePayload): void {
    this.#chatId ??= payload.chat_id;
    this.chatUpdated(payload);
  }

  /** `chat:ownership`: the chat is runnable and unowned; the worker will try to acquire it. */
  wake(hint: OwnershipHint): void {
    this.#chatId ??= hint.chat_id;
    this.ownershipHint(hint);
  }

  protected chatUpdated(payload: ChatUpdatePayload): void {
    // Receivers drop anything at or below the watermark: duplicates and reordering are harmless.
    if (payload.snapshot_version <= this.#watermark) return;
    this.#watermark = payload.snapshot_version;
    this.worker()?.chatUpdated(payload);
  }

  protected ownershipHint(hint: OwnershipHint): void {
    const worker = this.worker();
    if (worker)
      this.ctx.waitUntil(
        worker.wake().catch((err: unknown) => logger.warn("acquire_failed", { chat_id: hint.chat_id, error: String(err) })),
      );
  }

  private forward(chatId: string, call: (stub: DurableObjectStub<ChatObject>) => Promise<void>): void {
    const stub = this.env.CHAT_OBJECT.get(this.env.CHAT_OBJECT.idFromName(chatId));
    this.ctx.waitUntil(call(stub).catch((err: unknown) => logger.warn("notify_forward_failed", { chat_id: chatId, error: String(err) })));
  }

  /** Health check: one query through this object's pool. */
  async checkDatabase(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      const result = await this.pool().query("SELECT 1 AS one");
      return result.rows[0]?.one === 1 ? { ok: true } : { ok: false, error: "unexpected reply" };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }
}
