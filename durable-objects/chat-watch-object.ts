/**
 * ChatWatchObject: one Durable Object per user (`idFromName(userId)`), holding that user's
 * `/chats/watch` sockets (docs/stream.md "The chat list watch"). Whoever commits a change to one of
 * the user's chats tells this object which chat (src/chats/chat-watchers.ts); it reads the chat as
 * GET /chats lists it and sends each socket what changed. While any socket is open, its alarm runs
 * the catch-up poll and rechecks the sockets' credentials every CHAT_WATCH_POLL_MS; with none open
 * it does nothing, arms no alarm and holds no connection, so it sleeps.
 */
import { DurableObject } from "cloudflare:workers";
import type { Pool } from "@neondatabase/serverless";
import { LAPSE_REASONS, lapsedCredentials } from "../src/accounts/lapsed-credentials";
import { readPendingClientCalls } from "../src/chats/pending-client-calls";
import { changedChats, presentChats, watchedChats } from "../src/chats/watch-reads";
import { type Config, configFromEnv } from "../src/config/env";
import { connectionOf, createDb, createPool } from "../src/db/client";
import { errorValue } from "../src/chat-commands/error-value";
import { apiErrorOf, errorBody } from "../src/http/errors";
import { QuotaExceededError } from "../src/limits/errors";
import { errorText, logger, setLogLevel } from "../src/log/log";
import { REQUEST_ID_HEADER } from "../src/log/request-context";
import { WatchFeed } from "../src/watch/watch-feed";
import { CREDENTIAL_LAPSED_CODE } from "./chat-object/socket-credentials";
import { WATCH_KEY_HEADER, WATCH_USER_HEADER } from "./chat-watch/headers";
import { WatchSockets } from "./chat-watch/watch-sockets";

/** A connection unused this long closes: the object's reads come in short bursts, and an open one would keep it awake. */
const WATCH_DB_IDLE_MS = 1_000;

export class ChatWatchObject extends DurableObject<Env> {
  readonly #sockets: WatchSockets;
  readonly #feed: WatchFeed;
  #pool: Pool | null = null;
  /** Set by a notification before any socket says whose object this is (it never disagrees: the object is named by the user). */
  #owner: string | null = null;

  constructor(state: DurableObjectState, env: Env) {
    super(state, env);
    this.#sockets = new WatchSockets(state);
    this.#feed = new WatchFeed({
      read: (ids) => watchedChats(this.#db(), this.#user(), ids),
      readChanged: (since, limit) => changedChats(this.#db(), this.#user(), since, limit),
      pendingToolCalls: (chatId) => readPendingClientCalls(this.#db(), chatId),
      present: (ids) => presentChats(this.#db(), this.#user(), ids),
      send: (event) => this.#sockets.broadcast(event),
      watchingSince: () => this.#sockets.oldestOpenedAt() ?? Date.now(),
      now: Date.now,
    });
  }

  /** A change to one of the user's chats was committed (best effort: the poll heals a lost one). */
  async chatChanged(ownerId: string, chatId: string): Promise<void> {
    if (this.#sockets.count() === 0) return;
    this.#owner = ownerId;
    await this.#feed.changed(chatId);
  }

  /** An upgrade the Worker authenticated: the user's id and key in headers it set. */
  override async fetch(request: Request): Promise<Response> {
    const userId = request.headers.get(WATCH_USER_HEADER);
    const keyId = request.headers.get(WATCH_KEY_HEADER);
    if (!userId || !keyId || request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
      return new Response("expected a WebSocket upgrade", { status: 426 });
    const limit = this.#config().CHAT_MAX_WATCH_SOCKETS_PER_USER;
    if (this.#sockets.count() >= limit) {
      const full = new QuotaExceededError("watch_sockets_per_user", limit, "You have as many chat list watches open as you may.");
      return Response.json(errorBody(apiErrorOf(errorValue(full))), { status: 403 });
    }
    const first = this.#sockets.count() === 0;
    const pair = new WebSocketPair();
    const requestId = request.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID();
    this.#sockets.open(pair[1], { requestId, userId, keyId, openedAt: Date.now() });
    this.#owner = userId;
    if (first) {
      this.#feed.reset();
      await this.ctx.storage.setAlarm(Date.now() + this.#config().CHAT_WATCH_POLL_MS);
    }
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** While any socket is open: the catch-up poll, then the credential check on the same connection. */
  override async alarm(): Promise<void> {
    if (this.#sockets.count() === 0) {
      this.#feed.reset();
      return;
    }
    try {
      await this.#feed.poll();
    } catch (err) {
      logger.warn("watch_poll_failed", { user_id: this.#owner, error: errorText(err) });
    }
    await this.#checkCredentials();
    if (this.#sockets.count() > 0) await this.ctx.storage.setAlarm(Date.now() + this.#config().CHAT_WATCH_POLL_MS);
  }

  /** Sockets whose key was revoked or expired, or whose user was suspended, close with 4401 (docs/accounts.md). */
  async #checkCredentials(): Promise<void> {
    const open = this.#sockets.all();
    const keyIds = [...new Set(open.flatMap(({ session }) => (session ? [session.keyId] : [])))];
    if (keyIds.length === 0) return;
    let lapsed: Awaited<ReturnType<typeof lapsedCredentials>>;
    try {
      lapsed = await lapsedCredentials(createDb(this.#db()), null, keyIds, new Date());
    } catch (err) {
      logger.warn("watch_credentials_check_failed", { user_id: this.#owner, error: errorText(err) });
      return;
    }
    for (const { socket, session } of open) {
      const lapse = session ? lapsed.get(session.keyId) : undefined;
      if (!lapse) continue;
      logger.info("socket_credential_lapsed", { kind: "watch", user_id: session?.userId, lapse });
      this.#sockets.close(socket, CREDENTIAL_LAPSED_CODE, LAPSE_REASONS[lapse]);
    }
  }

  /** One-way: what a client sends is ignored. */
  override webSocketMessage(): void {}

  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    this.#sockets.logEnd(socket, code);
    this.#sockets.close(socket, code === 1005 || code === 1006 ? 1000 : code, reason);
  }

  override webSocketError(socket: WebSocket): void {
    this.#sockets.logEnd(socket, null);
  }

  #user(): string {
    const user = this.#sockets.userId() ?? this.#owner;
    if (user === null) throw new Error("watch object without a user");
    return user;
  }

  #config(): Config {
    const config = configFromEnv(this.env);
    setLogLevel(config.LOG_LEVEL);
    return config;
  }

  #db(): Pool {
    this.#pool ??= createPool({ ...connectionOf(this.#config()), max: 1, idleTimeoutMs: WATCH_DB_IDLE_MS });
    return this.#pool;
  }
}
