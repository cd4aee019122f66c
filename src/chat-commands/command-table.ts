/**
 * Every chat command a ChatObject serves, in one table: the name the routes and other chats'
 * objects call it by, the name its failures are logged under, and the function that runs it. The
 * object dispatches its `command` RPC through this table and the routes' RPC type is derived from
 * it, so a new chat command is one entry here, its function and its route.
 */
import type { Caller } from "../accounts/authentication";
import type { CommandContext } from "./context";
import { clearCommand, compactCommand, interruptCommand, reconcileCommand, submitToolResultsCommand } from "./control";
import { chatOrganizationFor } from "./chat-organization";
import { createChatCommand } from "./create-chat";
import { editMessageCommand, sendMessageCommand } from "./messages";
import { type Outcome, outcome } from "./outcome";
import { deleteQueuedCommand, promoteQueuedCommand } from "./queue";
import { readChatCommand, readMessagesCommand } from "./reads";
import { turnsCommand } from "./turns";
import { updateChatCommand } from "./update-chat";

interface CommandEntry<C extends { chatId: string }, V> {
  /** The command in `chat_command_failed` log lines. */
  logName: string;
  run(ctx: CommandContext, cmd: C): Promise<V>;
}

function entry<C extends { chatId: string }, V>(logName: string, run: (ctx: CommandContext, cmd: C) => Promise<V>): CommandEntry<C, V> {
  return { logName, run };
}

export const CHAT_COMMANDS = {
  create: entry("create", createChatCommand),
  sendMessage: entry("send_message", sendMessageCommand),
  editMessage: entry("edit_message", editMessageCommand),
  deleteQueued: entry("delete_queued", deleteQueuedCommand),
  promoteQueued: entry("promote_queued", promoteQueuedCommand),
  interrupt: entry("interrupt", interruptCommand),
  submitToolResults: entry("tool_results", submitToolResultsCommand),
  compact: entry("compact", compactCommand),
  clear: entry("clear", clearCommand),
  reconcile: entry("reconcile", reconcileCommand),
  update: entry("update_chat", updateChatCommand),
  turns: entry("turns", turnsCommand),
  read: entry("read_chat", readChatCommand),
  messages: entry("read_messages", readMessagesCommand),
};

export type ChatCommandName = keyof typeof CHAT_COMMANDS;
/** What the command is called with (every command names its chat). */
export type CommandInput<K extends ChatCommandName> = Parameters<(typeof CHAT_COMMANDS)[K]["run"]>[1];
/** What the command answers when it succeeds. */
export type CommandValue<K extends ChatCommandName> = Awaited<ReturnType<(typeof CHAT_COMMANDS)[K]["run"]>>;

export function isChatCommand(name: string): name is ChatCommandName {
  return Object.hasOwn(CHAT_COMMANDS, name);
}

/**
 * Runs one command on its chat's context: its value, or its error as a value. The context is
 * built inside, so a deployment whose configuration fails answers like any other failure.
 */
export function runCommand<K extends ChatCommandName>(
  name: K,
  cmd: CommandInput<K>,
  context: (chatId: string) => CommandContext,
): Promise<Outcome<CommandValue<K>>> {
  const { logName, run } = CHAT_COMMANDS[name] as CommandEntry<CommandInput<K>, CommandValue<K>>;
  return outcome(logName, () => run(context(cmd.chatId), cmd));
}

/** A command as a route sends it: its caller is whoever the presented token authenticates. */
export type TokenCommandInput<K extends ChatCommandName> = Omit<CommandInput<K>, "callerId">;

/** A command's outcome, and the user the token authenticated as (for the Worker's request log line). */
export type TokenCommandOutcome<V> = Outcome<V> & { userId?: string };

/**
 * Authenticates the presented token (docs/hot-path.md), then runs the command as its user; a token
 * that does not authenticate is the command's error (401), and the command never runs.
 */
export function runCommandWithToken<K extends ChatCommandName>(
  name: K,
  cmd: TokenCommandInput<K>,
  authenticate: () => Promise<Caller>,
  context: (chatId: string) => CommandContext,
): Promise<TokenCommandOutcome<CommandValue<K>>> {
  const { logName, run } = CHAT_COMMANDS[name] as CommandEntry<CommandInput<K>, CommandValue<K>>;
  return asAuthenticated(logName, authenticate, (caller) =>
    run(context(cmd.chatId), { ...cmd, callerId: caller.userId } as CommandInput<K>),
  );
}

/** POST /chats as the route sends it: no caller, and the organization the body names (absent: the caller's own). */
export type CreateRequest = Omit<CommandInput<"create">, "callerId" | "organizationId" | "parentChatId"> & {
  organizationId?: string | undefined;
};

/**
 * Create for a route that left authentication to the new chat's object: authenticates the token,
 * chooses and checks the chat's organization for its user (chat-organization.ts), then creates.
 */
export function runCreateWithToken(
  cmd: CreateRequest,
  authenticate: () => Promise<Caller>,
  context: (chatId: string) => CommandContext,
): Promise<TokenCommandOutcome<CommandValue<"create">>> {
  return asAuthenticated(CHAT_COMMANDS.create.logName, authenticate, async (caller) => {
    const ctx = context(cmd.chatId);
    const organizationId = await chatOrganizationFor(ctx.db, caller, cmd.organizationId);
    return createChatCommand(ctx, { ...cmd, callerId: caller.userId, organizationId });
  });
}

/** `run` as the user the token authenticates; the outcome names them once they are known. */
async function asAuthenticated<V>(
  logName: string,
  authenticate: () => Promise<Caller>,
  run: (caller: Caller) => Promise<V>,
): Promise<TokenCommandOutcome<V>> {
  let userId: string | undefined;
  const result = await outcome(logName, () =>
    authenticate().then((caller) => {
      userId = caller.userId;
      return run(caller);
    }),
  );
  return userId === undefined ? result : { ...result, userId };
}

/**
 * The RPC a ChatObject serves for the table: the routes call it through src/http/chat-object-rpc.ts,
 * other chats' objects directly. Declared here, by shape, so callers need not import the class.
 */
export interface ChatCommandRpc {
  command<K extends ChatCommandName>(requestId: string | null, name: K, cmd: CommandInput<K>): Promise<Outcome<CommandValue<K>>>;
  /** The same command for a route that did not authenticate its caller: the object does, from `token`. */
  commandWithToken<K extends ChatCommandName>(
    requestId: string,
    token: string,
    name: K,
    cmd: TokenCommandInput<K>,
  ): Promise<TokenCommandOutcome<CommandValue<K>>>;
  /** POST /chats, authenticated by the new chat's object from `token`. */
  createWithToken(requestId: string, token: string, cmd: CreateRequest): Promise<TokenCommandOutcome<CommandValue<"create">>>;
}
