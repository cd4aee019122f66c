/**
 * The experimental debug run commands (docs/debug-runs.md), for the chat's owner only: another
 * user's chat answers as a missing one. The chat's flag, the runs' list and one run with its
 * request and response. Reads go to the object's warm pool, as every chat read does.
 */
import type { Config } from "../config/env";
import { DebugRunNotFoundError } from "../debug-runs/errors";
import { recordsDebugRuns } from "../debug-runs/recorder";
import { type DebugRun, type DebugRunSummary, listDebugRuns, readDebugRun, setChatDebugRuns } from "../debug-runs/store";
import { ChatNotFoundError } from "../chatstate/index";
import { type ChatCommand, type CommandContext, ownedBy } from "./context";

export interface DebugSettings {
  /** The owner's flag on this chat. */
  enabled: boolean;
  /** Whether this chat's model calls are recorded now (the flag under the deployment's mode). */
  recording: boolean;
  mode: Config["CHAT_DEBUG_RUNS"];
  retentionHours: number;
  maxBytes: number;
  runsPerChat: number;
}

export interface SetDebugRunsCommand extends ChatCommand {
  enabled: boolean;
}

export interface ListDebugRunsCommand extends ChatCommand {
  limit: number;
  traceId?: string | undefined;
}

export interface ReadDebugRunCommand extends ChatCommand {
  runId: string;
}

export async function debugSettingsCommand(ctx: CommandContext, cmd: ChatCommand): Promise<DebugSettings> {
  const chat = ownedBy(await ctx.store.chat(cmd.chatId), cmd);
  return settingsOf(ctx.config, chat.debugRuns);
}

/** Turning the flag off deletes the chat's runs: the owner asked for them to stop being kept. */
export async function setDebugRunsCommand(ctx: CommandContext, cmd: SetDebugRunsCommand): Promise<DebugSettings> {
  ownedBy(await ctx.store.chat(cmd.chatId), cmd);
  if (!(await setChatDebugRuns(ctx.store.pool, cmd.chatId, cmd.enabled))) throw new ChatNotFoundError(cmd.chatId);
  return settingsOf(ctx.config, cmd.enabled);
}

export async function listDebugRunsCommand(ctx: CommandContext, cmd: ListDebugRunsCommand): Promise<DebugRunSummary[]> {
  ownedBy(await ctx.store.chat(cmd.chatId), cmd);
  return listDebugRuns(ctx.store.pool, cmd.chatId, { limit: cmd.limit, traceId: cmd.traceId });
}

export async function readDebugRunCommand(ctx: CommandContext, cmd: ReadDebugRunCommand): Promise<DebugRun> {
  ownedBy(await ctx.store.chat(cmd.chatId), cmd);
  const run = await readDebugRun(ctx.store.pool, cmd.chatId, cmd.runId);
  if (!run) throw new DebugRunNotFoundError(cmd.chatId, cmd.runId);
  return run;
}

function settingsOf(config: Config, enabled: boolean): DebugSettings {
  return {
    enabled,
    recording: recordsDebugRuns(config.CHAT_DEBUG_RUNS, { debugRuns: enabled }),
    mode: config.CHAT_DEBUG_RUNS,
    retentionHours: config.CHAT_DEBUG_RUN_RETENTION_HOURS,
    maxBytes: config.CHAT_DEBUG_RUN_MAX_BYTES,
    runsPerChat: config.CHAT_DEBUG_RUNS_PER_CHAT,
  };
}
