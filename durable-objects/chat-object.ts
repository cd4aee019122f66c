/**
 * ChatObject: one Durable Object per chat (`idFromName(chatId)`). A thin adapter from platform
 * calls (RPC, fetch, alarm, WebSocket) to the code in src/. It holds only what the spec keeps in
 * memory; Postgres holds everything committed.
 *
 * Chat commands arrive as RPC, one method each (from src/routes/chat-object-calls.ts), so the
 * object sees every change to its chat first: each runs on the object's store (ChatCommands), whose
 * notifier delivers the post-commit notification in memory. The constructor builds the parts in
 * dependency order; what they build on first use is chat-object/chat-runtime.ts.
 */
import { DurableObject } from "cloudflare:workers";
import { ChatCommands, type CreateRequest, type Sender, type Unsigned } from "../src/chat-commands/chat-commands";
import type { ChatCommand } from "../src/chat-commands/context";
import type { CreateChatCommand } from "../src/chat-commands/create-chat";
import type { EditMessageCommand, SendMessageCommand } from "../src/chat-commands/messages";
import type { QueueCommand } from "../src/chat-commands/queue";
import type { MessagesCommand } from "../src/chat-commands/reads";
import type { PromptsCommand } from "../src/chat-commands/prompts";
import type { TurnsCommand } from "../src/chat-commands/turns";
import type { ChatCostCommand } from "../src/chat-commands/cost";
import type { ListDebugRunsCommand, ReadDebugRunCommand, SetDebugRunsCommand } from "../src/chat-commands/debug-runs";
import type { UpdateChatCommand } from "../src/chat-commands/update-chat";
import type { ChatUpdatePayload, Notifier, OwnershipHint } from "../src/chats/notifier";
import { chatWatchers, notifyingWatchers } from "../src/chats/chat-watchers";
import type { ToolResultInput } from "../src/chats/transitions/requires-action";
import { configFromEnv } from "../src/config/env";
import { PartBuffer } from "../src/part-buffer/part-buffer";
import { EpisodeRelays } from "../src/stream/episode-relays";
import { readSyncHints, readSyncSnapshot } from "../src/stream/sync-reads";
import { ChildObjects } from "../src/subagents/child-objects";
import { ChildWaiters } from "../src/subagents/child-waiters";
import type { StreamPart } from "../src/wire/stream-part";
import { AlarmClock, storageAlarm } from "./chat-object/alarm-clock";
import { Incarnation } from "./chat-object/incarnation";
import { ChatRuntime } from "./chat-object/chat-runtime";
import { ChatUpdates } from "./chat-object/chat-updates";
import { ObjectChatId } from "./chat-object/object-chat-id";
import { ObjectNotifier } from "./chat-object/object-notifier";
import { type ChatObjectInbox, OtherChatObjects } from "./chat-object/other-chat-objects";
import { SocketUpgrades } from "./chat-object/socket-upgrades";
import { StreamSockets } from "./chat-object/stream-sockets";
import { SyncPoller } from "./chat-object/sync-poller";
import { ObjectCadence } from "./chat-object/object-cadence";
import { errorText, logger } from "../src/log/log";
import { markChatRead } from "../src/chats/chat-views";

export class ChatObject extends DurableObject<Env> implements ChatObjectInbox {
  readonly #chatId = new ObjectChatId();
  /** One alarm multiplexes every timer: the worker's tick, the part buffer's deadlines, task sleeps, the sync poll. */
  readonly #clock: AlarmClock;
  /** Streaming parts of this chat's model calls (the spec's message part buffer). */
  readonly parts: PartBuffer<StreamPart>;
  readonly #streams: StreamSockets;
  /** Spec "Sync poller": the chat's versions to every stream loop while any is open. */
  readonly #poller: SyncPoller;
  /** Active or idle: how often the poll and the credential check wake the object. */
  readonly #cadence: ObjectCadence;
  /** wait_agent calls of this chat's turn, woken by its children's objects (childChanged). */
  readonly #childWaiters: ChildWaiters;
  readonly #runtime: ChatRuntime;
  readonly #updates: ChatUpdates;
  readonly #commands: ChatCommands;
  readonly #sockets: SocketUpgrades;

  constructor(state: DurableObjectState, env: Env) {
    super(state, env);
    const chatId = this.#chatId;
    const incarnation = new Incarnation(state.storage);
    const clock = new AlarmClock({ now: Date.now, setAlarm: storageAlarm(state) });
    const parts = new PartBuffer<StreamPart>({ now: Date.now, requestTick: () => clock.arm() });
    const relays = new EpisodeRelays(parts, () => chatId.require());
    const cadence = new ObjectCadence({
      now: Date.now,
      busy: () => this.#runtime.tickDueAt() !== null,
      idleMs: () => configFromEnv(env).CHAT_STREAM_IDLE_POLL_MS,
      // The reads' deadlines moved earlier (an overdue credential check is due at once).
      woke: () => {
        this.#runtime.connectionsLinger(true);
        clock.arm();
      },
    });
    const streams = new StreamSockets({
      state,
      read: (id, cursors) => readSyncSnapshot(this.#runtime.pool(), id, cursors),
      parts: (historyVersion, attempt, listener) => relays.follow(historyVersion, attempt, listener),
      sleep: (ms) => clock.sleep(ms, new AbortController().signal),
      chatSeen: (id) => chatId.seen(id),
      // The owner opened or closed the chat's stream: their read marker moves (Chat.has_unread),
      // and their chat list watch hears of it.
      markRead: (id) =>
        this.#runtime.keepAlive(
          markChatRead(this.#runtime.pool(), id)
            .then((moved) => moved && watchers.chatChanged(moved.ownerId, id))
            .catch((err) => logger.warn("chat_mark_read_failed", { chat_id: id, error: errorText(err) })),
        ),
    });
    const poller = new SyncPoller({
      streams,
      chatId: () => chatId.value,
      readHints: async (id) => (await readSyncHints(this.#runtime.pool(), [id])).get(id),
      pollMs: () => configFromEnv(env).CHAT_STREAM_SYNC_POLL_MS,
      now: Date.now,
      cadence,
    });
    const others = new OtherChatObjects(state, env);
    const childWaiters = new ChildWaiters((ms, signal) => clock.sleep(ms, signal));
    const watchers = chatWatchers(env, (work) => state.waitUntil(work), "object");
    const notifier = this.notifier(notifyingWatchers(new ObjectNotifier(chatId, this, others), watchers));
    const children = new ChildObjects(env, childWaiters);
    const runtime = new ChatRuntime({
      state,
      env,
      chatId,
      incarnation,
      clock,
      parts,
      notifier,
      cadence,
      watchers: { metadataChanged: (chat) => watchers.chatChanged(chat.ownerId, chat.id) },
      children,
    });
    clock.watch(
      () => runtime.tickDueAt(),
      () => parts.nextDeadline(),
      () => poller.dueAt(),
    );
    this.#clock = clock;
    this.parts = parts;
    this.#streams = streams;
    this.#poller = poller;
    this.#cadence = cadence;
    this.#childWaiters = childWaiters;
    this.#runtime = runtime;
    this.#updates = new ChatUpdates(runtime, streams, others);
    this.#commands = new ChatCommands(runtime);
    this.#sockets = new SocketUpgrades({ chatId, runtime, streams, poller, clock, parts, cadence });
  }

  /** What this object publishes, as sent. The notification fault suite's build wraps it (test/support/notification-faults.ts). */
  protected notifier(notifier: Notifier): Notifier {
    return notifier;
  }

  // ---- chat commands: the Worker's routes, and other chats' objects acting for their owner ----

  create(from: Sender, cmd: CreateRequest) {
    return this.#commands.create(from, cmd);
  }
  createChild(cmd: CreateChatCommand) {
    return this.#commands.createChild(cmd);
  }
  sendMessage(from: Sender, cmd: Unsigned<SendMessageCommand>) {
    return this.#commands.sendMessage(from, cmd);
  }
  editMessage(from: Sender, cmd: Unsigned<EditMessageCommand>) {
    return this.#commands.editMessage(from, cmd);
  }
  deleteQueued(from: Sender, cmd: Unsigned<QueueCommand>) {
    return this.#commands.deleteQueued(from, cmd);
  }
  promoteQueued(from: Sender, cmd: Unsigned<QueueCommand>) {
    return this.#commands.promoteQueued(from, cmd);
  }
  interrupt(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#commands.interrupt(from, cmd);
  }
  submitToolResults(from: Sender, cmd: Unsigned<ChatCommand & { results: ToolResultInput[] }>) {
    return this.#commands.submitToolResults(from, cmd);
  }
  compact(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#commands.compact(from, cmd);
  }
  clear(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#commands.clear(from, cmd);
  }
  reconcile(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#commands.reconcile(from, cmd);
  }
  update(from: Sender, cmd: Unsigned<UpdateChatCommand>) {
    return this.#commands.update(from, cmd);
  }
  turns(from: Sender, cmd: Unsigned<TurnsCommand>) {
    return this.#commands.turns(from, cmd);
  }
  cost(from: Sender, cmd: Unsigned<ChatCostCommand>) {
    return this.#commands.cost(from, cmd);
  }
  debugSettings(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#commands.debugSettings(from, cmd);
  }
  setDebugRuns(from: Sender, cmd: Unsigned<SetDebugRunsCommand>) {
    return this.#commands.setDebugRuns(from, cmd);
  }
  debugRuns(from: Sender, cmd: Unsigned<ListDebugRunsCommand>) {
    return this.#commands.debugRuns(from, cmd);
  }
  debugRun(from: Sender, cmd: Unsigned<ReadDebugRunCommand>) {
    return this.#commands.debugRun(from, cmd);
  }
  read(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#commands.read(from, cmd);
  }
  messages(from: Sender, cmd: Unsigned<MessagesCommand>) {
    return this.#commands.messages(from, cmd);
  }
  prompts(from: Sender, cmd: Unsigned<PromptsCommand>) {
    return this.#commands.prompts(from, cmd);
  }

  // ---- notifications (the spec's pubsub) and reports from other chats --------------------------

  /** `chat:update` for this object's chat: from its own store, another object or the cron. */
  notify(payload: ChatUpdatePayload): void {
    this.#chatId.seen(payload.chat_id);
    this.#cadence.touched();
    this.#updates.chatUpdated(payload);
  }

  /** `chat:ownership`: the chat is runnable and unowned; the worker will try to acquire it. */
  wake(hint: OwnershipHint): void {
    this.#chatId.seen(hint.chat_id);
    this.#cadence.touched();
    this.#updates.ownershipHint();
  }

  /**
   * The cron: this chat is still without a generated title long after its last attempt (an object
   * that crashed, a model that was down). Starts one more bounded attempt (docs/titles.md).
   */
  retryTitle(chatId: string): Promise<void> {
    this.#chatId.seen(chatId);
    return this.#runtime.titles().retry(chatId);
  }

  /** A child of this chat moved: wake the wait_agent calls watching it. */
  childChanged(report: { parent_chat_id: string; chat_id: string }): void {
    this.#chatId.seen(report.parent_chat_id);
    this.#cadence.touched();
    this.#childWaiters.report(report.chat_id);
  }

  // ---- the alarm and the sockets ---------------------------------------------------------------

  /** The one alarm: wake due sleepers, run the due tick, sync poll, credential check and buffer collection; re-arm. */
  override async alarm(): Promise<void> {
    await this.#runtime.reclaimAfterRestart();
    const now = Date.now();
    this.#clock.fired(now);
    this.parts.tick(now);
    const idle = this.#cadence.idle(now);
    this.#runtime.connectionsLinger(!idle);
    const [, reads] = await Promise.all([this.#runtime.tickIfDue(now), this.#periodicReads(now, idle)]);
    logger.debug("object_alarm", { chat_id: this.#chatId.value, idle, ...reads, at: now });
    this.#clock.arm();
  }

  /**
   * The sync poll and the credential check, each when due. An idle chat's wake runs both, one
   * after the other on one connection, so they share every wake-up from then on.
   */
  async #periodicReads(now: number, idle: boolean): Promise<{ polled: boolean; checked: boolean }> {
    if (!idle) {
      const poll = this.#poller.pollIfDue(now);
      const check = this.#sockets.checkCredentialsIfDue(now);
      await Promise.all([poll, check]);
      return { polled: poll !== undefined, checked: check !== undefined };
    }
    if (!this.#poller.isDue(now) && !this.#sockets.credentialsDue(now)) return { polled: false, checked: false };
    // Both are marked run now (so nothing re-arms the alarm for either meanwhile); the check waits for the poll.
    const poll = this.#poller.pollIfDue(now, true);
    const check = this.#sockets.checkCredentialsIfDue(now, true, poll);
    await Promise.all([poll, check]);
    return { polled: poll !== undefined, checked: check !== undefined };
  }

  override fetch(request: Request): Promise<Response> {
    return this.#sockets.answer(request);
  }

  /** Stream sockets send nothing the server reads; a hibernated socket's close stops its loop. */
  override webSocketMessage(): void {}

  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    this.#streams.closedByClient(socket, code, reason);
  }

  override webSocketError(socket: WebSocket): void {
    this.#streams.closed(socket, null);
  }

  /** Health check: one query through this object's pool. */
  checkDatabase() {
    return this.#runtime.checkDatabase();
  }
}
