/**
 * ChatCommands: the chat commands one chat's object serves, one method each. The ChatObject's RPC
 * methods call these; each authenticates its sender, runs its command function on the object's
 * context, and answers an Answer: the value, or the error as a value the Worker maps to its HTTP
 * answer (outcome.ts). A token a route left to the object is authenticated here, in #run, the
 * one place on the object that does it.
 */
import type { Caller } from "../accounts/authentication";
import type { VerifiedKeys } from "../accounts/verified-keys";
import { assertChatsQuota } from "../limits/quotas";
import type { RateLimits } from "../limits/rate-limits";
import { requestIdFrom, runInRequest } from "../log/request-context";
import { chatOrganizationFor } from "./chat-organization";
import type { ChatCommand, CommandContext } from "./context";
import { clearCommand, compactCommand, interruptCommand, reconcileCommand, submitToolResultsCommand } from "./control";
import { type CreateChatCommand, createChatCommand } from "./create-chat";
import { type EditMessageCommand, editMessageCommand, type SendMessageCommand, sendMessageCommand } from "./messages";
import { type Outcome, outcome } from "./outcome";
import { deleteQueuedCommand, promoteQueuedCommand, type QueueCommand } from "./queue";
import { type MessagesCommand, readChatCommand, readMessagesCommand } from "./reads";
import { type TurnsCommand, turnsCommand } from "./turns";
import { type ChatCostCommand, chatCostCommand } from "./cost";
import { chatPromptsCommand, type PromptsCommand } from "./prompts";
import {
  debugSettingsCommand,
  type ListDebugRunsCommand,
  listDebugRunsCommand,
  type ReadDebugRunCommand,
  readDebugRunCommand,
  type SetDebugRunsCommand,
  setDebugRunsCommand,
} from "./debug-runs";
import { type UpdateChatCommand, updateChatCommand } from "./update-chat";
import type { ToolResultInput } from "../chats/transitions/requires-action";

/**
 * Who sent a command: a route's request (its id, for the object's log lines) with either the user
 * its middleware authenticated or the token it left for the object to authenticate
 * (docs/hot-path.md); or another chat's object acting for its owner, with no request to name.
 */
export type Sender = { requestId: string | null; caller: SenderCaller } | { requestId: string; token: string };

/** The part of an authenticated caller a command uses. */
export type SenderCaller = Pick<Caller, "userId" | "siteRoles">;

/** A command as sent: its caller is the sender's. */
export type Unsigned<C extends ChatCommand> = Omit<C, "callerId">;

/** A command's outcome, and the user a token authenticated as (for the Worker's request log line). */
export type Answer<V> = Outcome<V> & { userId?: string };

/** POST /chats as the route sends it: the organization the body names (absent: the caller's own). */
export type CreateRequest = Omit<CreateChatCommand, "callerId" | "organizationId" | "parentChatId"> & {
  organizationId?: string | undefined;
};

/** What the commands run with, built on first use so a bad configuration answers as a failed command. */
export interface CommandRuntime {
  context(chatId: string): CommandContext;
  keys(): VerifiedKeys;
  rateLimits(): RateLimits;
}

/** The commands that change nothing: not counted against the sender's write limits. */
const READS: ReadonlySet<string> = new Set([
  "read_chat",
  "read_messages",
  "turns",
  "debug_settings",
  "debug_runs",
  "debug_run",
  "chat_cost",
  "read_prompts",
]);

export class ChatCommands {
  constructor(private readonly runtime: CommandRuntime) {}

  /** POST /chats: the creator's organization is chosen and checked here (chat-organization.ts). */
  create(from: Sender, cmd: CreateRequest) {
    return this.#run(from, cmd.chatId, "create", async (caller) => {
      const ctx = this.runtime.context(cmd.chatId);
      // Side by side: the quota's read costs no round trip of its own.
      const [organizationId] = await Promise.all([
        chatOrganizationFor(ctx.db, caller, cmd.organizationId),
        assertChatsQuota(ctx.store.pool, caller.userId, ctx.config.CHAT_MAX_CHATS_PER_USER),
      ]);
      return createChatCommand(ctx, { ...cmd, callerId: caller.userId, organizationId });
    });
  }

  /** spawn_agent, from the parent's object: the child's organization and parent are the parent's. */
  createChild(cmd: CreateChatCommand) {
    return this.#run({ requestId: null, caller: { userId: cmd.callerId, siteRoles: [] } }, cmd.chatId, "create", () =>
      createChatCommand(this.runtime.context(cmd.chatId), cmd),
    );
  }

  sendMessage(from: Sender, cmd: Unsigned<SendMessageCommand>) {
    return this.#signed(from, "send_message", sendMessageCommand, cmd);
  }

  editMessage(from: Sender, cmd: Unsigned<EditMessageCommand>) {
    return this.#signed(from, "edit_message", editMessageCommand, cmd);
  }

  deleteQueued(from: Sender, cmd: Unsigned<QueueCommand>) {
    return this.#signed(from, "delete_queued", deleteQueuedCommand, cmd);
  }

  promoteQueued(from: Sender, cmd: Unsigned<QueueCommand>) {
    return this.#signed(from, "promote_queued", promoteQueuedCommand, cmd);
  }

  interrupt(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#signed(from, "interrupt", interruptCommand, cmd);
  }

  submitToolResults(from: Sender, cmd: Unsigned<ChatCommand & { results: ToolResultInput[] }>) {
    return this.#signed(from, "tool_results", submitToolResultsCommand, cmd);
  }

  compact(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#signed(from, "compact", compactCommand, cmd);
  }

  clear(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#signed(from, "clear", clearCommand, cmd);
  }

  reconcile(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#signed(from, "reconcile", reconcileCommand, cmd);
  }

  update(from: Sender, cmd: Unsigned<UpdateChatCommand>) {
    return this.#signed(from, "update_chat", updateChatCommand, cmd);
  }

  turns(from: Sender, cmd: Unsigned<TurnsCommand>) {
    return this.#signed(from, "turns", turnsCommand, cmd);
  }

  cost(from: Sender, cmd: Unsigned<ChatCostCommand>) {
    return this.#signed(from, "chat_cost", chatCostCommand, cmd);
  }

  /** The experimental debug runs (docs/debug-runs.md): the chat's flag, its runs, one run. */
  debugSettings(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#signed(from, "debug_settings", debugSettingsCommand, cmd);
  }

  setDebugRuns(from: Sender, cmd: Unsigned<SetDebugRunsCommand>) {
    return this.#signed(from, "set_debug_runs", setDebugRunsCommand, cmd);
  }

  debugRuns(from: Sender, cmd: Unsigned<ListDebugRunsCommand>) {
    return this.#signed(from, "debug_runs", listDebugRunsCommand, cmd);
  }

  debugRun(from: Sender, cmd: Unsigned<ReadDebugRunCommand>) {
    return this.#signed(from, "debug_run", readDebugRunCommand, cmd);
  }

  read(from: Sender, cmd: Unsigned<ChatCommand>) {
    return this.#signed(from, "read_chat", readChatCommand, cmd);
  }

  messages(from: Sender, cmd: Unsigned<MessagesCommand>) {
    return this.#signed(from, "read_messages", readMessagesCommand, cmd);
  }

  prompts(from: Sender, cmd: Unsigned<PromptsCommand>) {
    return this.#signed(from, "read_prompts", chatPromptsCommand, cmd);
  }

  /** `command` on the object's context, signed by the sender's user. */
  #signed<C extends ChatCommand, V>(
    from: Sender,
    logName: string,
    command: (ctx: CommandContext, cmd: C) => Promise<V>,
    cmd: Unsigned<C>,
  ): Promise<Answer<V>> {
    return this.#run(from, cmd.chatId, logName, (caller) =>
      command(this.runtime.context(cmd.chatId), { ...cmd, callerId: caller.userId } as C),
    );
  }

  /**
   * `run` as the sender's user, in the context of the request that sent it (its request id), its
   * failures logged under `logName`. A token that does not authenticate is the command's error
   * (401), and one whose user is not in `chatId`'s organization answers as for a missing chat
   * (404); the command never runs. The key's last_used_at is written after the request's work.
   */
  async #run<V>(from: Sender, chatId: string, logName: string, run: (caller: SenderCaller) => Promise<V>): Promise<Answer<V>> {
    if ("caller" in from) {
      const trusted = () => outcome(logName, () => run(from.caller));
      return from.requestId === null ? trusted() : runInRequest(requestIdFrom(from.requestId), trusted);
    }
    return runInRequest(requestIdFrom(from.requestId), async () => {
      let userId: string | undefined;
      const keys = this.runtime.keys();
      const result = await keys.afterRequest(() =>
        outcome(logName, async () => {
          const caller = await keys.callerFor(from.token, chatId);
          userId = caller.userId;
          // A token left to the object is counted here; a caller the Worker authenticated, there.
          if (!READS.has(logName)) await this.runtime.rateLimits().write(caller);
          return run(caller);
        }),
      );
      return userId === undefined ? result : { ...result, userId };
    });
  }
}
