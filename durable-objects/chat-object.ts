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
import { type ChatCommandName, type CommandInput, type CommandValue, isChatCommand, runCommand } from "../src/chat-commands/command-table";
import type { CommandContext } from "../src/chat-commands/context";
import type { Outcome } from "../src/chat-commands/outcome";
import { AlarmClock } from "../src/chat-object/alarm-clock";
import { ObjectNotifier } from "../src/chat-object/object-notifier";
import { notificationFaults } from "../src/chat-object/notification-faults";
import { CALLER_ID_HEADER, CHAT_ID_HEADER, STREAM_CURSORS_HEADER } from "../src/chat-object/headers";
import { PartsSession } from "../src/chat-object/parts-socket";
import { logSocketSession, socketSession } from "../src/chat-object/socket-session";
import { hintsFromPayload, StreamSockets } from "../src/chat-object/stream-sockets";
import { configFromEnv } from "../src/config/env";
import { createHookDispatcher } from "../src/hooks/dispatcher";
import { createDb, createPool } from "../src/db/client";
import type { ChatUpdatePayload, OwnershipHint } from "../src/db/notifier";
import { ChatStore } from "../src/db/store";
import { errorText, logger, setLogLevel } from "../src/log";
import { currentRequestId, REQUEST_ID_HEADER, requestIdFrom, runInRequest } from "../src/observability/request-context";
import type { StreamPart } from "../src/llm/stream-part";
import { AttributionKeyCache } from "../src/runner/attribution";
import { ChatWorker } from "../src/runner/chat-worker";
import { TitleGenerator } from "../src/runner/title-generation";
import { ObjectTracing } from "../src/observability/object-tracing";
import type { ChatRow } from "../src/db/schema/chats";
import { titleChangeEvent } from "../src/stream/stream-events";
import { r2FileReader } from "../src/runner/prompt-files";
import { findWaitingForSlot } from "../src/db/worker/sweep";
import { readSyncHints, readSyncSnapshot } from "../src/db/stream-sync";
import { EpisodeRelays } from "../src/stream/episode-relays";
import { PartBuffer } from "../src/stream/part-buffer";
import { productionToolsFor } from "../src/tools/production";
import { connectMcpServer } from "../src/mcp/session";
import { McpTurnConnections } from "../src/mcp/turn-connections";
import { parseCursorsHeader } from "../src/stream/resume-cursors";
import { ChildWaiters } from "../src/subagents/child-waiters";
import { isSettled } from "../src/subagents/children";
import type { SubagentHost } from "../src/subagents/host";

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
  readonly parts = new PartBuffer<StreamPart>({ now: () => Date.now(), requestTick: () => this.#clock.arm() });
  #worker: ChatWorker | undefined;
  /** When the worker's next heartbeat/sync tick is due (null: none). */
  #workerTickAt: number | null = null;
  /** One alarm multiplexes every timer: the worker's tick, the part buffer's deadlines, task sleeps. */
  readonly #clock = new AlarmClock({
    now: () => Date.now(),
    setAlarm: (at) =>
      this.ctx.waitUntil(
        this.ctx.storage.setAlarm(at).catch((err: unknown) => logger.error("alarm_set_failed", { error: errorText(err) })),
      ),
    sources: [() => this.#workerTickAt, () => this.parts.nextDeadline(), () => this.#pollDueAt()],
  });
  /** The relay of the stream loops: one reader of the part buffer per episode followed. */
  readonly #relays = new EpisodeRelays(this.parts, () => this.#requireChatId());
  /** The chat's stream sockets and their loops. */
  readonly #streams = new StreamSockets({
    state: this.ctx,
    read: (chatId, cursors) => readSyncSnapshot(this.pool(), chatId, cursors),
    parts: (historyVersion, generationAttempt, listener) => this.#relays.follow(historyVersion, generationAttempt, listener),
    sleep: (ms) => this.#clock.sleep(ms, new AbortController().signal),
    chatSeen: (chatId) => {
      this.#chatId ??= chatId;
    },
  });
  /** The chat owner's attribution key id, so a turn does not pay a transaction to resolve it. */
  readonly #attributionKeys = new AttributionKeyCache();
  /** The MCP sessions of the turn in progress, reused across its steps, closed when it ends (docs/mcp.md). */
  readonly #mcp = new McpTurnConnections((server) => connectMcpServer(server));
  /** When the next sync poll is due while streams are open (null: at once, e.g. after a restart). */
  #pollAt: number | null = null;
  /** wait_agent calls of this chat's turn, woken by its children's objects (childChanged). */
  readonly #childWaiters = new ChildWaiters((ms, signal) => this.#clock.sleep(ms, signal));
  /** The subagent tools' way to other chats' objects (docs/subagents.md). */
  readonly #subagentHost: SubagentHost = {
    createChild: (cmd) => this.#chatStub(cmd.chatId).command(null, "create", cmd),
    sendMessage: (cmd) => this.#chatStub(cmd.chatId).command(null, "sendMessage", cmd),
    interrupt: (cmd) => this.#chatStub(cmd.chatId).command(null, "interrupt", cmd),
    watch: (ids) => this.#childWaiters.watch(ids),
  };

  /** R3's notification faults: test builds only, compiled out of a deployment (src/chat-object/notification-faults.ts). */
  readonly #faults =
    typeof __CHATD_NOTIFICATION_FAULTS__ !== "undefined" && __CHATD_NOTIFICATION_FAULTS__
      ? notificationFaults(this.env, (work) => this.ctx.waitUntil(work))
      : undefined;

  /** The pool lives as long as the object: warm connections make transitions fast. */
  protected pool(): Pool {
    if (!this.#pool) {
      const config = configFromEnv(this.env);
      setLogLevel(config.LOG_LEVEL);
      this.#pool = createPool({ databaseUrl: config.DATABASE_URL, wsProxy: config.NEON_WS_PROXY, max: POOL_SIZE });
    }
    return this.#pool;
  }

  #tracing: ObjectTracing | undefined;

  /** Turn spans, stage metrics and the turn log (docs/observability.md). */
  protected tracing(): ObjectTracing {
    this.#tracing ??= new ObjectTracing(configFromEnv(this.env), this.ctx.storage, (work) => this.ctx.waitUntil(work.catch(() => {})));
    return this.#tracing;
  }

  protected context(chatId: string): CommandContext {
    this.#chatId ??= chatId;
    if (!this.#context) {
      const config = configFromEnv(this.env);
      const pool = this.pool();
      const objectNotifier = new ObjectNotifier(
        () => this.#chatId,
        { chatUpdated: (p) => this.chatUpdated(p), ownershipHint: (h) => this.ownershipHint(h) },
        { notify: (id, p) => this.forward(id, (stub) => stub.notify(p)), wake: (id, h) => this.forward(id, (stub) => stub.wake(h)) },
      );
      const notifier = this.#faults ? this.#faults.notifier(objectNotifier) : objectNotifier;
      const store = new ChatStore(pool, {
        notifier,
        staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
        requiresActionTimeoutMs: config.CHAT_REQUIRES_ACTION_TIMEOUT_MS,
        maxQueueLength: config.CHAT_MAX_QUEUED_MESSAGES,
      });
      const evictFiles = (keys: readonly string[]) => {
        this.ctx.waitUntil(
          this.env.FILES.delete([...keys]).catch((err: unknown) => logger.warn("file_evict_failed", { error: errorText(err) })),
        );
      };
      this.#context = {
        store,
        db: createDb(pool),
        config,
        evictFiles,
        titleChanged: (chat) => this.#titleChanged(chat),
        // One dispatcher per object: its limiter is the per-object cap (src/hooks/dispatcher.ts).
        hooks: createHookDispatcher(config),
        otherChats: { interrupt: (cmd) => this.#chatStub(cmd.chatId).command(null, "interrupt", cmd) },
        latestTurns: (limit) => this.tracing().latestTurns(limit),
        queueWait: (queuedAt, chat) => this.tracing().queueWait(queuedAt, chat),
      };
    }
    return this.#context;
  }

  // ---- chat commands (called by the Worker's routes and by other chats' objects) --------------

  /**
   * A chat command of the table, run inside the context of the request that sent it (its request
   * id); null for another chat's object acting for a turn, which has no request to name.
   */
  command<K extends ChatCommandName>(requestId: string | null, name: K, cmd: CommandInput<K>): Promise<Outcome<CommandValue<K>>> {
    if (!isChatCommand(name)) throw new Error(`not a chat command: ${String(name)}`);
    const run = () => runCommand(name, cmd, (chatId) => this.context(chatId));
    return requestId === null ? run() : runInRequest(requestIdFrom(requestId), run);
  }

  // ---- the chat worker (spec "Chat worker"), driven by notifications and the alarm -------------

  /** Disabled by CHAT_WORKER_ENABLED=false: the API alone (tests that need chats to stay put). */
  protected worker(): ChatWorker | undefined {
    const chatId = this.#chatId;
    if (!chatId) return undefined;
    if (!this.#worker) {
      const { store, db, config, hooks } = this.context(chatId);
      if (!config.CHAT_WORKER_ENABLED) return undefined;
      const sleep = (ms: number, signal: AbortSignal) => this.#clock.sleep(ms, signal);
      const tracing = this.tracing();
      const titles = new TitleGenerator({
        tracing,
        store,
        db,
        config,
        sleep,
        now: () => new Date(),
        attributionKeys: this.#attributionKeys,
        background: (work) => this.ctx.waitUntil(work.catch(() => {})),
        titleChanged: (chat) => this.#titleChanged(chat),
      });
      this.#worker = new ChatWorker(
        chatId,
        {
          store,
          db,
          config,
          parts: this.parts,
          toolsFor: productionToolsFor({
            db,
            now: () => new Date(),
            mcp: this.#mcp,
            subagents: { host: this.#subagentHost, pool: store.pool },
          }),
          now: () => new Date(),
          sleep,
          turnFinished: (chat, history) => titles.afterTurn(chat, history),
          files: r2FileReader(this.env.FILES),
          attributionKeys: this.#attributionKeys,
          tracer: tracing.tracer,
          turnEmitted: (turn) => tracing.turnEmitted(turn),
          ...(hooks ? { hooks } : {}),
        },
        {
          keepAlive: (work) => this.ctx.waitUntil(work.catch(() => {})),
          scheduleTick: (inMs) => {
            this.#workerTickAt = Date.now() + inMs;
            this.#clock.arm();
          },
          slotReleased: (_chatId, isRoot) => this.ctx.waitUntil(this.#wakeWaiting(isRoot)),
        },
      );
    }
    return this.#worker;
  }

  /** Titles are metadata outside the Sync algorithm: open streams hear of a write at once. */
  #titleChanged(chat: ChatRow): void {
    this.#streams.broadcast(titleChangeEvent(chat));
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
      for (const id of ids) {
        if (id === this.#chatId) continue;
        const wake = () => this.forward(id, (stub) => stub.wake({ chat_id: id, snapshot_version: 0 }));
        if (this.#faults) this.#faults.send("wake", id, 0, wake);
        else wake();
      }
    } catch (err) {
      logger.warn("wake_waiting_failed", { error: errorText(err) });
    }
  }

  /** The one alarm: wake due sleepers, run the due tick, the sync poll and buffer collection, re-arm for what remains. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.#clock.fired(now);
    this.parts.tick(now);
    const work: Promise<void>[] = [];
    if (this.#workerTickAt !== null && this.#workerTickAt <= now) {
      this.#workerTickAt = null;
      if (this.#worker) work.push(this.#worker.tick());
    }
    const pollAt = this.#pollDueAt();
    if (pollAt !== null && pollAt <= now) {
      this.#pollAt = now + configFromEnv(this.env).CHAT_STREAM_SYNC_POLL_MS;
      work.push(this.#syncPoll());
    }
    await Promise.all(work);
    this.#clock.arm();
  }

  /** The sync poll's deadline while any stream is open. */
  #pollDueAt(): number | null {
    if (this.#streams.count === 0) {
      this.#pollAt = null;
      return null;
    }
    return this.#pollAt ?? Date.now();
  }

  /** Spec "Sync poller": the chat's versions, delivered to every loop as hints. */
  async #syncPoll(): Promise<void> {
    const chatId = this.#chatId;
    if (!chatId) {
      // A fresh instance with hibernated sockets: hinting restores their loops (and their chat id).
      this.#streams.hint({});
      return;
    }
    try {
      const hints = (await readSyncHints(this.pool(), [chatId])).get(chatId);
      // No row: the chat was deleted. Versions cannot say so; a forced Sync reads nothing and
      // closes each stream with 4404.
      if (hints) this.#streams.hint(hints);
      else this.#streams.resync();
    } catch (err) {
      logger.warn("stream_poll_failed", { chat_id: chatId, error: errorText(err) });
    }
  }

  #requireChatId(): string {
    if (!this.#chatId) throw new Error("the object does not know its chat yet");
    return this.#chatId;
  }

  // ---- WebSockets ------------------------------------------------------------------------------

  /** The Worker forwards the authorized upgrade here; the chat id comes in a header it sets. */
  override async fetch(request: Request): Promise<Response> {
    return runInRequest(requestIdFrom(request.headers.get(REQUEST_ID_HEADER)), () => this.#upgrade(request));
  }

  #upgrade(request: Request): Response {
    const chatId = request.headers.get(CHAT_ID_HEADER);
    if (!chatId || request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
      return new Response("expected a WebSocket upgrade", { status: 426 });
    this.#chatId ??= chatId;
    const session = socketSession(currentRequestId() ?? crypto.randomUUID(), request.headers.get(CALLER_ID_HEADER));
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    if (!new URL(request.url).pathname.endsWith("/parts")) {
      // The stream: hibernatable, its loop's cursors in the socket's attachment.
      this.#streams.open(server, chatId, parseCursorsHeader(request.headers.get(STREAM_CURSORS_HEADER)), session);
      this.#pollAt ??= Date.now() + configFromEnv(this.env).CHAT_STREAM_SYNC_POLL_MS;
      this.#clock.arm();
      return new Response(null, { status: 101, webSocket: client });
    }
    // Not hibernated: a parts subscription lives in this object's memory, as the part buffer does.
    server.accept();
    const parts = new PartsSession(chatId, this.parts, {
      send: (t) => server.send(t),
      close: (code, reason) => server.close(code, reason),
    });
    server.addEventListener("message", (event) =>
      parts.onMessage(typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data)),
    );
    server.addEventListener("close", (event) => {
      parts.stop();
      logSocketSession("parts", chatId, session, event.code);
    });
    server.addEventListener("error", () => {
      parts.stop();
      logSocketSession("parts", chatId, session, null);
    });
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Stream sockets send nothing the server reads; a hibernated socket's close stops its loop. */
  override webSocketMessage(): void {}

  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    this.#streams.closed(socket, code);
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  override webSocketError(socket: WebSocket): void {
    this.#streams.closed(socket, null);
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
    // The turn is over (finished, failed, interrupted or archived): its MCP sessions close.
    if (payload.archived || payload.status === "waiting" || payload.status === "error") this.#mcp.closeAll();
    this.#streams.hint(hintsFromPayload(payload));
    this.worker()?.chatUpdated(payload);
    // A subagent that is done for now wakes its parent's wait_agent (a hint: the parent re-reads).
    if (payload.parent_chat_id !== null && isSettled(payload)) {
      const parentId = payload.parent_chat_id;
      this.forward(parentId, (stub) => stub.childChanged({ parent_chat_id: parentId, chat_id: payload.chat_id }));
    }
  }

  /** A child of this chat moved: wake the wait_agent calls watching it. */
  childChanged(report: { parent_chat_id: string; chat_id: string }): void {
    this.#chatId ??= report.parent_chat_id;
    this.#childWaiters.report(report.chat_id);
  }

  /** Another chat's object, with the class's own signatures (see src/http/chat-object.ts). */
  #chatStub(chatId: string): ChatObject {
    return this.env.CHAT_OBJECT.get(this.env.CHAT_OBJECT.idFromName(chatId)) as unknown as ChatObject;
  }

  protected ownershipHint(_hint: OwnershipHint): void {
    const worker = this.worker();
    // wake() does not reject: a failed acquisition is logged and retried by the worker itself.
    if (worker) this.ctx.waitUntil(worker.wake());
  }

  private forward(chatId: string, call: (stub: DurableObjectStub<ChatObject>) => Promise<void>): void {
    const stub = this.env.CHAT_OBJECT.get(this.env.CHAT_OBJECT.idFromName(chatId));
    this.ctx.waitUntil(
      call(stub).catch((err: unknown) => logger.warn("notify_forward_failed", { chat_id: chatId, error: errorText(err) })),
    );
  }

  /** Health check: one query through this object's pool. */
  async checkDatabase(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      const result = await this.pool().query("SELECT 1 AS one");
      return result.rows[0]?.one === 1 ? { ok: true } : { ok: false, error: "unexpected reply" };
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
  }
}
