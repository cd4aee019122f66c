/**
 * PATCH /chats/{chat}: `archived` applies SetArchived to the family (root first, all-or-nothing),
 * after stopping whatever of it runs when the caller asks to (stop-for-archive.ts);
 * `title` writes a user title; `labels`, `pin_order`, `mcp_server_ids` and `plan_mode` are metadata
 * (a plan mode switch is told to the chat's open streams, docs/plan-mode.md). Without `archived` no
 * transition runs. The archive goes first: if it is refused, nothing else is written.
 */
import { ChatNotFoundError } from "../chatstate/index";
import { type CommandContext, ownedBy } from "./context";
import { checkChatMcpServers } from "../mcp/servers";
import { stopForArchive } from "./stop-for-archive";

export interface UpdateChatCommand {
  chatId: string;
  callerId: string;
  archived?: boolean | undefined;
  /** With `archived: true`: stop what runs first (stop-for-archive.ts) instead of answering 409. */
  interruptRunning?: boolean | undefined;
  title?: string | undefined;
  labels?: Record<string, string> | undefined;
  pinOrder?: number | undefined;
  mcpServerIds?: string[] | undefined;
  planMode?: boolean | undefined;
}

/** PATCH answers 204 with no body (Coder's status), so the command answers no chat. */
export interface UpdateChatResult {
  /** Other chats of the family whose archived marker changed: their objects must hear of it. */
  familyChanged: string[];
}

export async function updateChatCommand(ctx: CommandContext, cmd: UpdateChatCommand): Promise<UpdateChatResult> {
  const existing = ownedBy(await ctx.store.chat(cmd.chatId), cmd);

  // Checked before any write: a refused server list leaves the chat untouched.
  const mcpServerIds =
    cmd.mcpServerIds === undefined ? undefined : await checkChatMcpServers(ctx.db, existing.organizationId, cmd.mcpServerIds);
  let familyChanged: string[] = [];
  if (cmd.archived !== undefined && cmd.archived !== existing.archived) {
    if (cmd.archived && cmd.interruptRunning) await stopForArchive(ctx, cmd.chatId, cmd.callerId);
    const result = await ctx.store.setArchived(cmd.chatId, cmd.archived);
    familyChanged = result.chats.map((c) => c.id).filter((id) => id !== cmd.chatId);
  }
  if (cmd.title !== undefined) {
    const written = await ctx.store.writeTitle(cmd.chatId, cmd.title, "user");
    if (written.applied) ctx.titleChanged(written.chat);
  }
  const planMode = cmd.planMode === undefined || cmd.planMode === existing.planMode ? undefined : cmd.planMode;
  const metadata = cmd.labels !== undefined || cmd.pinOrder !== undefined || mcpServerIds !== undefined || planMode !== undefined;
  if (metadata) {
    await ctx.store.updateMetadata(cmd.chatId, {
      ...(cmd.labels === undefined ? {} : { labels: cmd.labels }),
      ...(cmd.pinOrder === undefined ? {} : { pinOrder: cmd.pinOrder }),
      ...(mcpServerIds === undefined ? {} : { mcpServerIds }),
      ...(planMode === undefined ? {} : { planMode }),
    });
  }
  const chat = await ctx.store.chat(cmd.chatId);
  if (!chat) throw new ChatNotFoundError(cmd.chatId);
  if (metadata) ctx.metadataChanged(chat);
  return { familyChanged };
}
