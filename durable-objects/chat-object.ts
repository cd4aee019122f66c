/**
 * ChatObject: one Durable Object per chat (`idFromName(chatId)`). A thin adapter from platform
 * calls (RPC, fetch, alarm, WebSocket) to the code in src/. It holds only what the spec keeps in
 * memory; Postgres holds everything committed.
 *
 * Chat mutations arrive here as RPC calls from the Worker's routes, so the object sees every change
 * to its chat first: each runs one chat command of the table (src/chat-commands/command-table.ts)
 * on the object's store, whose notifier delivers the post-commit notification in memory. What the
 * object builds to do so is durable-objects/chat-object/object-wiring.ts.
 */
import { DurableObject } from "cloudflare:workers";
import {
  type ChatCommandName,
  type ChatCommandRpc,
  type CommandInput,
  type CommandValue,
  isChatCommand,
  runCommand,
  runCommandWithToken,
  runCreateWithToken,
  type CreateRequest,
  type TokenCommandInput,
  type TokenCommandOutcome,
} from "../src/chat-commands/command-table";
import type { CommandContext } from "../src/chat-commands/context";
import type { Caller } from "../src/accounts/authentication";
import type { Outcome } from "../src/chat-commands/outcome";
import { AlarmClock } from "./chat-object/alarm-clock";
import { CHAT_ID_HEADER, CREDENTIALS_HEADER, STREAM_CURSORS_HEADER } from "./chat-object/headers";
import { notificationFaults } from "./chat-object/notification-faults";
import { ObjectNotifier } from "./chat-object/object-notifier";
import { ObjectWiring } from "./chat-object/object-wiring";
import { PartsSession } from "./chat-object/parts-socket";
import { logSocketSession, socketSession } from "./chat-object/socket-session";
import { hintsFromPayload, StreamSockets } from "./chat-object/stream-sockets";
import { SyncPoller } from "./chat-object/sync-poller";
import { wakeWaiting } from "./chat-object/wake-waiting";
import { authorizeSocket } from "./chat-object/authorize-socket";
import { configFromEnv } from "../src/config/env";
import type { ChatUpdatePayload, Notifier, OwnershipHint } from "../src/chats/notifier";
import type { ChatRow } from "../src/db/schema/chats";
import { readSyncHints, readSyncSnapshot } from "../src/stream/sync-reads";
import type { StreamPart } from "../src/wire/stream-part";
import { errorText, logger } from "../src/log/log";
import { currentRequestId, REQUEST_ID_HEADER, requestIdFrom, runInRequest } from "../src/log/request-context";
import { EpisodeRelays } from "../src/stream/episode-relays";
import { PartBuffer } from "../src/part-buffer/part-buffer";
import { parseCursorsHeader } from "../src/stream/resume-cursors";
import { titleChangeEvent } from "../src/wire/stream-events";
import { ChildWaiters } from "../src/subagents/child-waiters";
import { isSettled } from "../src/subagents/children";
import type { SubagentHost } from "../src/subagents/host";
import { chatObjectStub } from "../src/placement/chat-object-stub";

export class ChatObject extends DurableObject<Env> implements ChatCommandRpc {
  /** The chat this object serves, learned from the first call that names it. */
  #chatId: string | undefined;
  /** The highest snapshot_version seen for this chat (the spec's receiver watermark). */
  #watermark = 0;
  /** Streaming parts of this chat's model calls (the spec's message part buffer). */
  readonly parts = new PartBuffer<StreamPart>({ now: () => Date.now(), requestTick: () => this.#clock.arm() });
  /** When the worker's next heartbeat/sync tick is due (null: none). */
  #workerTickAt: number | null = null;
  /** One alarm multiplexes every timer: the worker's tick, the part buffer's deadlines, task sleeps. */
  readonly #clock: AlarmClock = new AlarmClock({
    now: () => Date.now(),
    setAlarm: (at) =>
      this.ctx.waitUntil(
        this.ctx.storage.setAlarm(at).catch((err: unknown) => logger.error("alarm_set_failed", { error: errorText(err) })),
      ),
    sources: [() => this.#workerTickAt, () => this.parts.nextDeadline(), () => this.#poller.dueAt()],
  });
  /** The relay of the stream loops: one reader of the part buffer per episode followed. */
  readonly #relays = new EpisodeRelays(this.parts, () => this.#requireChatId());
  /** The chat's stream sockets and their loops. */
  readonly #streams: StreamSockets = new StreamSockets({
    state: this.ctx,
    read: (chatId, cursors) => readSyncSnapshot(this.#wiring.pool(), chatId, cursors),
    parts: (historyVersion, generationAttempt, listener) => this.#relays.follow(historyVersion, generationAttempt, listener),
    sleep: (ms) => this.#clock.sleep(ms, new AbortController().signal),
    chatSeen: (chatId) => {
      this.#chatId ??= chatId;
    },
  });
  /** Spec "Sync poller": the chat's versions to every stream loop while any is open. */
  readonly #poller: SyncPoller = new SyncPoller({
    streams: this.#streams,
    chatId: () => this.#chatId,
    readHints: async (chatId) => (await readSyncHints(this.#wiring.pool(), [chatId])).get(chatId),
    pollMs: () => configFromEnv(this.env).CHAT_STREAM_SYNC_POLL_MS,
    now: () => Date.now(),
  });
  /** wait_agent calls of this chat's turn, woken by its children's objects (childChanged). */
  readonly #childWaiters = new ChildWaiters((ms, signal) => this.#clock.sleep(ms, signal));
  /** The subagent tools' way to other chats' objects (docs/subagents.md). */
  readonly #subagentHost: SubagentHost = {
    createChild: (cmd) => this.#chatStub(cmd.chatId).command(null, "create", cmd),
    sendMessage: (cmd) => this.#chatStub(cmd.chatId).command(null, "sendMessage", cmd),
    interrupt: (cmd) => this.#chatStub(cmd.chatId).command(null, "interrupt", cmd),
    watch: (ids) => this.#childWaiters.watch(ids),
  };

  /** R3's notification faults: test builds only, compiled out of a deployment (durable-objects/chat-object/notification-faults.ts). */
  readonly #faults =
    typeof __CHATD_NOTIFICATION_FAULTS__ !== "undefined" && __CHATD_NOTIFICATION_FAULTS__
      ? notificationFaults(this.env, (work) => this.ctx.waitUntil(work))
      : undefined;

  /** The store's notifier: this chat's transitions in memory, other chats' to their objects. */
  readonly #notifier: Notifier = this.#withFaults(
    new ObjectNotifier(
      () => this.#chatId,
      { chatUpdated: (p) => this.#chatUpdated(p), ownershipHint: (h) => this.#ownershipHint(h) },
      { notify: (id, p) => this.#forward(id, (stub) => stub.notify(p)), wake: (id, h) => this.#forward(id, (stub) => stub.wake(h)) },
    ),
  );

  readonly #wiring: ObjectWiring = new ObjectWiring({
    env: this.env,
    storage: this.ctx.storage,
    waitUntil: (work) => this.ctx.waitUntil(work),
    sleep: (ms, signal) => this.#clock.sleep(ms, signal),
    parts: this.parts,
    notifier: this.#notifier,
    titleChanged: (chat) => this.#titleChanged(chat),
    otherChats: { interrupt: (cmd) => this.#chatStub(cmd.chatId).command(null, "interrupt", cmd) },
    subagentHost: this.#subagentHost,
    scheduleTick: (inMs) => {
      this.#workerTickAt = Date.now() + inMs;
      this.#clock.arm();
    },
    slotReleased: (_chatId, isRoot) => this.ctx.waitUntil(this.#wakeWaiting(isRoot)),
  });

  #withFaults(notifier: Notifier): Notifier {
    return this.#faults ? this.#faults.notifier(notifier) : notifier;
  }

  #context(chatId: string): CommandContext {
    this.#chatId ??= chatId;
    return this.#wiring.context();
  }

  // ---- chat commands (called by the Worker's routes and by other chats' objects) --------------

  /**
   * A chat command of the table, run inside the context of the request that sent it (its request
   * id); null for another chat's object acting for a turn, which has no request to name.
   */
  command<K extends ChatCommandName>(requestId: string | null, name: K, cmd: CommandInput<K>): Promise<Outcome<CommandValue<K>>> {
    if (!isChatCommand(name)) throw new Error(`not a chat command: ${String(name)}`);
    const run = () => runCommand(name, cmd, (chatId) => this.#context(chatId));
    return requestId === null ? run() : runInRequest(requestIdFrom(requestId), run);
  }

  /** A chat command from a route that left authentication to this object (docs/hot-path.md). */
  commandWithToken<K extends ChatCommandName>(
    requestId: string,
    token: string,
    name: K,
    cmd: TokenCommandInput<K>,
  ): Promise<TokenCommandOutcome<CommandValue<K>>> {
    if (!isChatCommand(name)) throw new Error(`not a chat command: ${String(name)}`);
    return this.#withToken(requestId, token, (authenticate, context) => runCommandWithToken(name, cmd, authenticate, context));
  }

  /** POST /chats: the new chat's object authenticates its creator and checks the organization (docs/hot-path.md). */
  createWithToken(requestId: string, token: string, cmd: CreateRequest): Promise<TokenCommandOutcome<CommandValue<"create">>> {
    return this.#withToken(requestId, token, (authenticate, context) => runCreateWithToken(cmd, authenticate, context));
  }

  /** `run` in the forwarding request's context, authenticating `token` on this object's keys (last_used_at written after it). */
  #withToken<T>(
    requestId: string,
    token: string,
    run: (authenticate: () => Promise<Caller>, context: (chatId: string) => CommandContext) => Promise<T>,
  ): Promise<T> {
    const keys = this.#wiring.keys();
    return runInRequest(requestIdFrom(requestId), () =>
      keys.afterRequest(() =>
        run(
          () => keys.callerFor(token),
          (chatId) => this.#context(chatId),
        ),
      ),
    );
  }

  // ---- the chat worker (spec "Chat worker"), driven by notifications and the alarm -------------

  /** Disabled by CHAT_WORKER_ENABLED=false: the API alone (tests that need chats to stay put). */
  #worker() {
    const chatId = this.#chatId;
    return chatId ? this.#wiring.worker(chatId) : undefined;
  }

  /** Titles are metadata outside the Sync algorithm: open streams hear of a write at once. */
  #titleChanged(chat: ChatRow): void {
    this.#streams.broadcast(titleChangeEvent(chat));
  }

  /** A slot was released: "wakes the oldest waiting chats at once". */
  async #wakeWaiting(isRoot: boolean): Promise<void> {
    const config = configFromEnv(this.env);
    await wakeWaiting(this.#wiring.pool(), {
      isRoot,
      limit: isRoot ? config.CHAT_ROOT_CONCURRENCY : config.CHAT_SUBAGENT_CONCURRENCY,
      staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
      ownChatId: this.#chatId,
      wake: (id) => {
        const wake = () => this.#forward(id, (stub) => stub.wake({ chat_id: id, snapshot_version: 0 }));
        if (this.#faults) this.#faults.send("wake", id, 0, wake);
        else wake();
      },
    });
  }

  /** The one alarm: wake due sleepers, run the due tick, the sync poll and buffer collection, re-arm for what remains. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.#clock.fired(now);
    this.parts.tick(now);
    const work: Promise<void>[] = [];
    if (this.#workerTickAt !== null && this.#workerTickAt <= now) {
      this.#workerTickAt = null;
      const worker = this.#wiring.builtWorker;
      if (worker) work.push(worker.tick());
    }
    const poll = this.#poller.pollIfDue(now);
    if (poll) work.push(poll);
    await Promise.all(work);
    this.#clock.arm();
  }

  #requireChatId(): string {
    if (!this.#chatId) throw new Error("the object does not know its chat yet");
    return this.#chatId;
  }

  // ---- WebSockets ------------------------------------------------------------------------------

  /**
   * The Worker forwards the upgrade here with the chat id and the presented token in headers it
   * sets; the object authenticates the token and checks the chat is the caller's (a 401 or 404 as
   * the Worker would answer it), then opens the socket.
   */
  override async fetch(request: Request): Promise<Response> {
    return runInRequest(requestIdFrom(request.headers.get(REQUEST_ID_HEADER)), async () => {
      const chatId = request.headers.get(CHAT_ID_HEADER);
      if (!chatId || request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
        return new Response("expected a WebSocket upgrade", { status: 426 });
      const caller = await authorizeSocket(this.#wiring, chatId, request.headers.get(CREDENTIALS_HEADER) ?? undefined);
      if (caller instanceof Response) return caller;
      return this.#upgrade(request, chatId, caller.userId);
    });
  }

  #upgrade(request: Request, chatId: string, callerId: string): Response {
    this.#chatId ??= chatId;
    const session = socketSession(currentRequestId() ?? crypto.randomUUID(), callerId);
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    if (!new URL(request.url).pathname.endsWith("/parts")) {
      // The stream: hibernatable, its loop's cursors in the socket's attachment.
      this.#streams.open(server, chatId, parseCursorsHeader(request.headers.get(STREAM_CURSORS_HEADER)), session);
      this.#poller.streamOpened();
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
    this.#chatUpdated(payload);
  }

  /** `chat:ownership`: the chat is runnable and unowned; the worker will try to acquire it. */
  wake(hint: OwnershipHint): void {
    this.#chatId ??= hint.chat_id;
    this.#ownershipHint(hint);
  }

  #chatUpdated(payload: ChatUpdatePayload): void {
    // Receivers drop anything at or below the watermark: duplicates and reordering are harmless.
    if (payload.snapshot_version <= this.#watermark) return;
    this.#watermark = payload.snapshot_version;
    // The turn is over (finished, failed, interrupted or archived): its MCP sessions close.
    if (payload.archived || payload.status === "waiting" || payload.status === "error") this.#wiring.mcp.closeAll();
    this.#streams.hint(hintsFromPayload(payload));
    this.#worker()?.chatUpdated(payload);
    // A subagent that is done for now wakes its parent's wait_agent (a hint: the parent re-reads).
    if (payload.parent_chat_id !== null && isSettled(payload)) {
      const parentId = payload.parent_chat_id;
      this.#forward(parentId, (stub) => stub.childChanged({ parent_chat_id: parentId, chat_id: payload.chat_id }));
    }
  }

  /** A child of this chat moved: wake the wait_agent calls watching it. */
  childChanged(report: { parent_chat_id: string; chat_id: string }): void {
    this.#chatId ??= report.parent_chat_id;
    this.#childWaiters.report(report.chat_id);
  }

  /** Another chat's object, with the class's own signatures (see src/http/chat-object-rpc.ts). */
  #chatStub(chatId: string): ChatObject {
    return chatObjectStub(this.env, chatId) as unknown as ChatObject;
  }

  #ownershipHint(_hint: OwnershipHint): void {
    const worker = this.#worker();
    // wake() does not reject: a failed acquisition is logged and retried by the worker itself.
    if (worker) this.ctx.waitUntil(worker.wake());
  }

  #forward(chatId: string, call: (stub: DurableObjectStub<ChatObject>) => Promise<void>): void {
    const stub = chatObjectStub(this.env, chatId);
    this.ctx.waitUntil(
      call(stub).catch((err: unknown) => logger.warn("notify_forward_failed", { chat_id: chatId, error: errorText(err) })),
    );
  }

  /** Health check: one query through this object's pool. */
  async checkDatabase(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      const result = await this.#wiring.pool().query("SELECT 1 AS one");
      return result.rows[0]?.one === 1 ? { ok: true } : { ok: false, error: "unexpected reply" };
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
  }
}
