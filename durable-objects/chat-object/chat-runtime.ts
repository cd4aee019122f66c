/**
 * ChatRuntime: what a ChatObject builds from its environment, each once and on first use: the warm
 * pool, the store and tracing, the chat commands' context, the API keys it has verified, and the
 * chat worker with its tools, title generator and timer. Built on first use so a deployment whose
 * configuration fails answers each command with that failure (outcome.ts) instead of failing to
 * construct. The object hands in its platform parts and keeps only the adapting of platform calls.
 */
import type { Pool } from "@neondatabase/serverless";
import type { CommandRuntime } from "../../src/chat-commands/chat-commands";
import type { CommandContext } from "../../src/chat-commands/context";
import { type Config, configFromEnv } from "../../src/config/env";
import { connectionOf, createDb, createPool, setIdleTimeout } from "../../src/db/client";
import type { Database } from "../../src/db/database";
import type { Notifier } from "../../src/chats/notifier";
import type { ChatRow } from "../../src/db/schema/chats";
import { ChatStore } from "../../src/chats/store";
import { createHookDispatcher, type HookDispatcher } from "../../src/hooks/dispatcher";
import type { StreamPart } from "../../src/wire/stream-part";
import { errorText, logger, setLogLevel } from "../../src/log/log";
import { connectMcpServer } from "../../src/mcp/session";
import { McpTurnConnections } from "../../src/mcp/turn-connections";
import { openedMcpServer } from "../../src/mcp/server-secrets";
import { mcpUrlGuard } from "../../src/mcp/url-guard";
import { ObjectTracing } from "../../src/observability/object-tracing";
import { sessionLifetime } from "../../src/accounts/sessions";
import { VerifiedKeys } from "../../src/accounts/verified-keys";
import { type RateLimits, rateLimitsOf } from "../../src/limits/rate-limits";
import { AttributionKeyCache } from "../../src/chat-worker/attribution";
import { ChatWorker, type WorkerHost } from "../../src/chat-worker/chat-worker";
import { r2FileReader } from "../../src/chat-worker/prompt-files";
import { TitleGenerator } from "../../src/chat-worker/title-generation";
import { SummaryGenerator } from "../../src/chat-worker/summary-generation";
import type { PartBuffer } from "../../src/part-buffer/part-buffer";
import type { ChildObjects } from "../../src/subagents/child-objects";
import { productionToolsFor } from "../../src/tools/production";
import type { AlarmClock } from "./alarm-clock";
import type { ObjectChatId } from "./object-chat-id";
import { poolAdmission, tenantShares } from "../../src/chat-worker/leases/pools";
import type { Incarnation } from "./incarnation";
import { wakeWaiting } from "./wake-waiting";
import { DebugRecorder } from "../../src/debug-runs/recorder";

/** A few connections are plenty: one object serializes its chat's work. */
const POOL_SIZE = 4;
/**
 * While its chat is idle, an object closes a connection this long after its last use: time enough
 * for the next read of the same wake to take it, never enough to keep the object awake.
 */
const IDLE_OBJECT_LINGER_MS = 100;

/** The object's platform parts the runtime is built from. */
export interface RuntimeParts {
  state: DurableObjectState;
  env: Env;
  chatId: ObjectChatId;
  /** What this object keeps across its instances: the worker id its leases are held under. */
  incarnation: Incarnation;
  /** The object's one alarm: the worker's tick and every task's sleep ride on it. */
  clock: AlarmClock;
  /** The object's part buffer, which its stream and parts sockets read too. */
  parts: PartBuffer<StreamPart>;
  /** The store's notifier: this chat's notifications in memory, others' to their objects. */
  notifier: Notifier;
  /** Whether the chat is idle (object-cadence.ts): every command is a sign of life. */
  cadence: { touched(): void };
  /**
   * The owner's chat list watchers, who hear of a written title, summary or other metadata at once
   * (metadata is outside transitions, so no notification carries it).
   */
  watchers: { metadataChanged(chat: ChatRow): void };
  /** Other chats' objects: the subagent tools' children, and a family's members an archive stops. */
  children: ChildObjects;
}

/** What needs no chat id: the configuration, the pool and what runs on it. */
interface Base {
  config: Config;
  pool: Pool;
  db: Database;
  store: ChatStore;
  hooks: HookDispatcher;
  tracing: ObjectTracing;
}

/**
 * One cache for every chat object in the isolate: an owner's second chat finds the key its first
 * resolved (the bound on a suspended owner, OWNER_RECHECK_MS, is the same for all of them).
 */
const ISOLATE_ATTRIBUTION_KEYS = new AttributionKeyCache();

/** The platform's fetch, for the model providers. */
const platformFetch: typeof fetch = (input, init) => fetch(input, init);

export class ChatRuntime implements CommandRuntime, WorkerHost {
  #base: Base | undefined;
  #context: CommandContext | undefined;
  #worker: ChatWorker | undefined;
  #keys: VerifiedKeys | undefined;
  #titles: TitleGenerator | undefined;
  #summaries: SummaryGenerator | undefined;
  #rateLimits: RateLimits | undefined;
  /** Whether released connections linger (connectionsLinger), applied to the pool when it is built. */
  #linger = true;
  /** When the worker's next heartbeat/sync tick is due (null: none); a source of the object's alarm. */
  #tickAt: number | null = null;
  /**
   * The MCP sessions of the turn in progress, reused across its steps, closed when it ends
   * (docs/mcp.md); each URL passes the outbound guard again first (docs/hardening.md).
   */
  readonly mcp = new McpTurnConnections(async (server) =>
    // Its credentials are opened for this connection only (docs/hardening.md).
    connectMcpServer(await openedMcpServer(this.config().CHAT_SECRETS_KEYS, server), mcpUrlGuard(this.config())),
  );

  constructor(private readonly parts: RuntimeParts) {}

  /**
   * The pool lives as long as the object: warm connections make transitions fast. A connection
   * unused for CHAT_DB_IDLE_CONNECTION_MS is closed, so a quiet object holds no socket open and can
   * hibernate.
   */
  #built(): Base {
    if (!this.#base) {
      const { env, state, notifier } = this.parts;
      const config = configFromEnv(env);
      setLogLevel(config.LOG_LEVEL);
      const pool = createPool({ ...connectionOf(config), max: POOL_SIZE, idleTimeoutMs: config.CHAT_DB_IDLE_CONNECTION_MS });
      const store = new ChatStore(pool, {
        notifier,
        staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
        requiresActionTimeoutMs: config.CHAT_REQUIRES_ACTION_TIMEOUT_MS,
        maxQueueLength: config.CHAT_MAX_QUEUED_MESSAGES,
      });
      // One dispatcher per object: its limiter is the per-object cap (src/hooks/dispatcher.ts).
      const hooks = createHookDispatcher(config);
      const tracing = new ObjectTracing(config, state.storage, (work) => this.keepAlive(work));
      this.#base = { config, pool, db: createDb(pool), store, hooks, tracing };
      this.connectionsLinger(this.#linger);
    }
    return this.#base;
  }

  pool(): Pool {
    return this.#built().pool;
  }

  /**
   * Whether a released connection lingers for CHAT_DB_IDLE_CONNECTION_MS (the chat is active) or
   * closes at once (idle: the object holds nothing open between its reads and can hibernate).
   */
  connectionsLinger(linger: boolean): void {
    this.#linger = linger;
    if (this.#base) setIdleTimeout(this.#base.pool, linger ? this.#base.config.CHAT_DB_IDLE_CONNECTION_MS : IDLE_OBJECT_LINGER_MS);
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

  store(): ChatStore {
    return this.#built().store;
  }

  /** A drizzle handle on the object's pool (the accounts queries'). */
  db(): Database {
    return this.#built().db;
  }

  config(): Config {
    return this.#built().config;
  }

  /** What every chat command on `chatId` runs with (src/chat-commands/context.ts). */
  context(chatId: string): CommandContext {
    this.parts.chatId.seen(chatId);
    this.parts.cadence.touched();
    if (!this.#context) {
      const { store, db, config, hooks, tracing } = this.#built();
      const { env, state, watchers, children } = this.parts;
      this.#context = {
        store,
        db,
        config,
        evictFiles: (keys) =>
          state.waitUntil(env.FILES.delete([...keys]).catch((err: unknown) => logger.warn("file_evict_failed", { error: errorText(err) }))),
        titleChanged: (chat) => watchers.metadataChanged(chat),
        metadataChanged: (chat) => watchers.metadataChanged(chat),
        firstPrompt: (chat, prompt) => this.titles().firstPrompt(chat, prompt),
        hooks,
        otherChats: children,
        queueWait: (queuedAt, chat) => tracing.queueWait(queuedAt, chat),
        latestTurns: (limit) => tracing.latestTurns(limit),
        worker: this.worker(chatId),
      };
    }
    return this.#context;
  }

  /** The API keys this object has verified, trusted for CHAT_AUTH_CACHE_MS (docs/hot-path.md). */
  keys(): VerifiedKeys {
    if (!this.#keys) {
      const { db, config, pool } = this.#built();
      const { state } = this.parts;
      this.#keys = new VerifiedKeys({
        db,
        ttlMs: config.CHAT_AUTH_CACHE_MS,
        now: () => new Date(),
        background: (work) => state.waitUntil(work.catch((err: unknown) => logger.warn("api_key_touch_failed", { error: errorText(err) }))),
        connectionFree: () => pool.idleCount > 0,
        sessions: sessionLifetime(config),
      });
    }
    return this.#keys;
  }

  /** The deployment's rate limits (docs/fairness.md), counted here for tokens the object authenticates. */
  rateLimits(): RateLimits {
    this.#rateLimits ??= rateLimitsOf(this.parts.env);
    return this.#rateLimits;
  }

  /**
   * Title generation (docs/titles.md): started by a chat's first prompt (the commands), retried by
   * the cron (ChatObject.retryTitle).
   */
  titles(): TitleGenerator {
    this.#titles ??= new TitleGenerator({ ...this.#backgroundDeps(), titleChanged: (chat) => this.parts.watchers.metadataChanged(chat) });
    return this.#titles;
  }

  /** Summaries and turn status labels, after each finished turn (docs/titles.md). */
  #summaryGenerator(): SummaryGenerator {
    this.#summaries ??= new SummaryGenerator({
      ...this.#backgroundDeps(),
      summaryChanged: (chat) => this.parts.watchers.metadataChanged(chat),
    });
    return this.#summaries;
  }

  /** What the background model calls run with: the object's pool, clock and tracing. */
  #backgroundDeps() {
    const { store, db, config, tracing } = this.#built();
    return {
      tracing,
      store,
      db,
      config,
      sleep: (ms: number, signal: AbortSignal) => this.parts.clock.sleep(ms, signal),
      now: () => new Date(),
      fetch: platformFetch,
      attributionKeys: ISOLATE_ATTRIBUTION_KEYS,
      background: (work: Promise<unknown>) => this.keepAlive(work),
    };
  }

  /** The chat worker (spec "Chat worker"); it never acquires when CHAT_WORKER_ENABLED=false (the API alone). */
  worker(chatId: string): ChatWorker {
    if (!this.#worker) {
      const { store, db, config, hooks, tracing } = this.#built();
      const { env, clock, parts, children } = this.parts;
      const sleep = (ms: number, signal: AbortSignal) => clock.sleep(ms, signal);
      const tools = productionToolsFor({
        db,
        now: () => new Date(),
        mcp: { connections: this.mcp, toolOutputMaxBytes: config.CHAT_MCP_TOOL_OUTPUT_MAX_BYTES },
        subagents: {
          host: children,
          pool: store.pool,
          quotas: { perTurn: config.CHAT_MAX_SUBAGENTS_PER_TURN, perFamily: config.CHAT_MAX_SUBAGENTS_PER_FAMILY },
        },
      });
      this.#worker = new ChatWorker(
        chatId,
        {
          store,
          db,
          config,
          parts,
          toolsFor: tools,
          now: () => new Date(),
          sleep,
          fetch: platformFetch,
          turnFinished: (chat, history, model) => this.#summaryGenerator().afterTurn(chat, history, model),
          files: r2FileReader(env.FILES),
          attributionKeys: ISOLATE_ATTRIBUTION_KEYS,
          tracer: tracing.tracer,
          turnEmitted: (turn) => tracing.turnEmitted(turn),
          hooks,
          debugRuns: new DebugRecorder({ pool: store.pool, db, config, background: (work) => this.keepAlive(work) }),
        },
        this,
      );
    }
    return this.#worker;
  }

  /** The worker of the chat this object serves, if it knows its chat and the worker is on. */
  get chatWorker(): ChatWorker | undefined {
    const chatId = this.parts.chatId.value;
    return chatId ? this.worker(chatId) : undefined;
  }

  // ---- WorkerHost: the worker's platform, on the object's alarm --------------------------------

  keepAlive(work: Promise<unknown>): void {
    this.parts.state.waitUntil(work.catch(() => {}));
  }

  leaseTaken(chatId: string, workerId: string): void {
    this.parts.incarnation.leaseTaken(chatId, workerId);
  }

  leaseEnded(chatId: string, workerId: string): void {
    this.parts.incarnation.leaseEnded(chatId, workerId);
  }

  scheduleTick(inMs: number): void {
    this.#tickAt = Date.now() + inMs;
    this.parts.clock.arm();
  }

  /** A slot was released: "wakes the oldest waiting chats at once", each by an ownership hint. */
  slotReleased(_chatId: string, isRoot: boolean): void {
    const { config, pool } = this.#built();
    const { notifier, chatId } = this.parts;
    const work = wakeWaiting(pool, {
      isRoot,
      admission: poolAdmission(
        { root: config.CHAT_ROOT_CONCURRENCY, subagent: config.CHAT_SUBAGENT_CONCURRENCY },
        tenantShares(config),
        isRoot ? "root" : "subagent",
      ),
      staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
      ownChatId: chatId.value,
      wake: (id) => notifier.ownershipHint({ chat_id: id, snapshot_version: 0 }),
    });
    this.parts.state.waitUntil(work);
  }

  /**
   * The first alarm of an instance that follows another (a deploy, a crash): when the last one
   * left a lease (incarnation.ts), the worker acquires the chat at once, that lease counting as
   * stale. An idle chat answers the probe with "not runnable" and nothing is written.
   */
  async reclaimAfterRestart(): Promise<void> {
    const left = await this.parts.incarnation.leftByPrevious();
    if (!left) return;
    this.parts.chatId.seen(left.chatId);
    try {
      if (!this.config().CHAT_WORKER_ENABLED) return;
      this.keepAlive(this.worker(left.chatId).wake({ reclaimFrom: left.workerId }));
    } catch (err) {
      // A misconfigured deployment: its requests say so; the sweep retries the chat later.
      logger.warn("restart_reclaim_failed", { chat_id: left.chatId, error: errorText(err) });
    }
  }

  /** The tick's deadline (a source of the object's alarm). */
  tickDueAt(): number | null {
    return this.#tickAt;
  }

  /** The alarm fired at `now`: the worker's tick, when it is due (a worker that exists only). */
  tickIfDue(now: number): Promise<void> | undefined {
    if (this.#tickAt === null || this.#tickAt > now) return undefined;
    this.#tickAt = null;
    return this.#worker?.tick();
  }
}
