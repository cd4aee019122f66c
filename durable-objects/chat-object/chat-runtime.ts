/**
 * What a ChatObject builds from its environment, each once and on first use: the warm pool, the
 * tracing, the chat commands' context (its store and notifier) and the chat worker with its tools
 * and title generator. The object hands in the platform's parts (its env, storage, alarm, other
 * chats' objects) and keeps only the adapting of platform calls to these.
 */
import type { Pool } from "@neondatabase/serverless";
import type { CommandContext } from "../../src/chat-commands/context";
import { configFromEnv } from "../../src/config/env";
import { connectionOf, createDb, createPool } from "../../src/db/client";
import type { Notifier } from "../../src/chats/notifier";
import type { ChatRow } from "../../src/db/schema/chats";
import { ChatStore } from "../../src/chats/store";
import { createHookDispatcher } from "../../src/hooks/dispatcher";
import type { StreamPart } from "../../src/wire/stream-part";
import { errorText, logger, setLogLevel } from "../../src/log/log";
import { connectMcpServer } from "../../src/mcp/session";
import { McpTurnConnections } from "../../src/mcp/turn-connections";
import { ObjectTracing } from "../../src/observability/object-tracing";
import { VerifiedKeys } from "../../src/accounts/verified-keys";
import { AttributionKeyCache } from "../../src/chat-worker/attribution";
import { ChatWorker, type ChatWorkerHooks } from "../../src/chat-worker/chat-worker";
import { r2FileReader } from "../../src/chat-worker/prompt-files";
import { TitleGenerator } from "../../src/chat-worker/title-generation";
import type { PartBuffer } from "../../src/part-buffer/part-buffer";
import type { SubagentHost } from "../../src/subagents/host";
import { productionToolsFor } from "../../src/tools/production";

/** A few connections are plenty: one object serializes its chat's work. */
const POOL_SIZE = 4;

export interface ObjectPlatform {
  env: Env;
  storage: DurableObjectStorage;
  /** Keeps the object alive for work that outlives the call (waitUntil). */
  waitUntil(work: Promise<unknown>): void;
  /** Sleeps on the object's one alarm. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** The object's part buffer, which its stream and parts sockets read too. */
  parts: PartBuffer<StreamPart>;
  /** The store's notifier: this chat's notifications in memory, others' to their objects. */
  notifier: Notifier;
  /** A title was written: the chat's open streams hear of it at once. */
  titleChanged(chat: ChatRow): void;
  /** Commands on other chats, through their own objects. */
  otherChats: NonNullable<CommandContext["otherChats"]>;
  /** The subagent tools' way to other chats' objects (docs/subagents.md). */
  subagentHost: SubagentHost;
  /** The worker's timers and slot releases, multiplexed on the object's alarm. */
  scheduleTick: ChatWorkerHooks["scheduleTick"];
  slotReleased: ChatWorkerHooks["slotReleased"];
}

/**
 * One cache for every chat object in the isolate: an owner's second chat finds the key its first
 * resolved (the bound on a suspended owner, OWNER_RECHECK_MS, is the same for all of them).
 */
const ISOLATE_ATTRIBUTION_KEYS = new AttributionKeyCache();

export class ObjectWiring {
  #pool: Pool | undefined;
  #tracing: ObjectTracing | undefined;
  #context: CommandContext | undefined;
  #worker: ChatWorker | undefined;
  #keys: VerifiedKeys | undefined;
  /** The chat owner's attribution key id, so a turn does not pay a read to resolve it. */
  readonly #attributionKeys = ISOLATE_ATTRIBUTION_KEYS;
  /** The MCP sessions of the turn in progress, reused across its steps, closed when it ends (docs/mcp.md). */
  readonly mcp = new McpTurnConnections((server) => connectMcpServer(server));

  constructor(private readonly platform: ObjectPlatform) {}

  /**
   * The pool lives as long as the object: warm connections make transitions fast. A connection
   * unused for CHAT_DB_IDLE_CONNECTION_MS is closed, so a quiet object holds no socket open and can
   * hibernate.
   */
  pool(): Pool {
    if (!this.#pool) {
      const config = configFromEnv(this.platform.env);
      setLogLevel(config.LOG_LEVEL);
      this.#pool = createPool({ ...connectionOf(config), max: POOL_SIZE, idleTimeoutMs: config.CHAT_DB_IDLE_CONNECTION_MS });
    }
    return this.#pool;
  }

  /** Turn spans, stage metrics and the turn log (docs/observability.md). */
  tracing(): ObjectTracing {
    const { env, storage, waitUntil } = this.platform;
    this.#tracing ??= new ObjectTracing(configFromEnv(env), storage, (work) => waitUntil(work.catch(() => {})));
    return this.#tracing;
  }

  /** What every chat command runs with (src/chat-commands/context.ts). */
  context(): CommandContext {
    if (!this.#context) {
      const { env, waitUntil, notifier, titleChanged, otherChats } = this.platform;
      const config = configFromEnv(env);
      const pool = this.pool();
      const store = new ChatStore(pool, {
        notifier,
        staleThresholdMs: config.CHAT_STALE_THRESHOLD_MS,
        requiresActionTimeoutMs: config.CHAT_REQUIRES_ACTION_TIMEOUT_MS,
        maxQueueLength: config.CHAT_MAX_QUEUED_MESSAGES,
      });
      const evictFiles = (keys: readonly string[]) => {
        waitUntil(env.FILES.delete([...keys]).catch((err: unknown) => logger.warn("file_evict_failed", { error: errorText(err) })));
      };
      this.#context = {
        store,
        db: createDb(pool),
        config,
        evictFiles,
        titleChanged,
        // One dispatcher per object: its limiter is the per-object cap (src/hooks/dispatcher.ts).
        hooks: createHookDispatcher(config),
        otherChats,
        queueWait: (queuedAt, chat) => this.tracing().queueWait(queuedAt, chat),
        latestTurns: (limit) => this.tracing().latestTurns(limit),
        acquireWith: async (tx) => this.worker(tx.chatId)?.acquireWithCommand(tx),
        updateStartingTurn: (chatId, fn, options) => {
          const worker = this.worker(chatId);
          return worker ? worker.updateAndAcquire(fn, options) : store.update(chatId, fn, options);
        },
      };
    }
    return this.#context;
  }

  /** The API keys this object has verified, trusted for CHAT_AUTH_CACHE_MS (docs/hot-path.md). */
  keys(): VerifiedKeys {
    if (!this.#keys) {
      const { env, waitUntil } = this.platform;
      this.#keys = new VerifiedKeys({
        db: this.context().db,
        ttlMs: configFromEnv(env).CHAT_AUTH_CACHE_MS,
        now: () => new Date(),
        background: (work) => waitUntil(work.catch((err: unknown) => logger.warn("api_key_touch_failed", { error: errorText(err) }))),
        connectionFree: () => this.pool().idleCount > 0,
      });
    }
    return this.#keys;
  }

  /** The worker built so far, if any (the alarm ticks only a worker that exists). */
  get builtWorker(): ChatWorker | undefined {
    return this.#worker;
  }

  /** The chat worker (spec "Chat worker"); none when CHAT_WORKER_ENABLED=false (the API alone). */
  worker(chatId: string): ChatWorker | undefined {
    if (!this.#worker) {
      const { store, db, config, hooks } = this.context();
      if (!config.CHAT_WORKER_ENABLED) return undefined;
      const { env, waitUntil, sleep, parts, titleChanged, subagentHost, scheduleTick, slotReleased } = this.platform;
      const tracing = this.tracing();
      const titles = new TitleGenerator({
        tracing,
        store,
        db,
        config,
        sleep,
        now: () => new Date(),
        attributionKeys: this.#attributionKeys,
        background: (work) => waitUntil(work.catch(() => {})),
        titleChanged,
      });
      this.#worker = new ChatWorker(
        chatId,
        {
          store,
          db,
          config,
          parts,
          toolsFor: productionToolsFor({
            db,
            now: () => new Date(),
            mcp: this.mcp,
            subagents: { host: subagentHost, pool: store.pool },
          }),
          now: () => new Date(),
          sleep,
          turnFinished: (chat, history, model) => titles.afterTurn(chat, history, model),
          files: r2FileReader(env.FILES),
          attributionKeys: this.#attributionKeys,
          tracer: tracing.tracer,
          turnEmitted: (turn) => tracing.turnEmitted(turn),
          ...(hooks ? { hooks } : {}),
        },
        { keepAlive: (work) => waitUntil(work.catch(() => {})), scheduleTick, slotReleased },
      );
    }
    return this.#worker;
  }
}
