/**
 * What clients send (`ChatInputPart`) to what history stores (`ChatMessagePart`). Text and file
 * references pass through; a file part must name one of the caller's uploads in the chat's organization, and is
 * stored with its name and media type. Linking the files to the chat happens inside the
 * transition (src/files/files.ts); this only resolves and checks ownership.
 */
import type { ChatTx } from "../chats/chat-tx";
import { FileAttachmentError, linkFiles } from "../files/files";
import type { ChatMessagePart } from "../db/schema/chats";
import type { CommandContext } from "./context";

type FileReferencePart = Extract<ChatMessagePart, { type: "file-reference" }>;

export type ChatInputPart = { type: "text"; text: string } | { type: "file"; file_id: string } | FileReferencePart;

export interface ResolvedContent {
  parts: ChatMessagePart[];
  fileIds: string[];
}

export async function resolveContent(
  ctx: CommandContext,
  input: readonly ChatInputPart[],
  owner: { ownerId: string; organizationId: string },
): Promise<ResolvedContent> {
  const fileIds = input.flatMap((p) => (p.type === "file" ? [p.file_id] : []));
  const files = await ctx.store.attachableFiles(fileIds, owner.ownerId, owner.organizationId);
  const missing = fileIds.filter((id) => !files.has(id));
  if (missing.length > 0) throw new FileAttachmentError(missing, "missing");
  const parts = input.map((p): ChatMessagePart => {
    if (p.type === "text") return { type: "text", text: p.text };
    if (p.type === "file-reference")
      return { type: "file-reference", file_name: p.file_name, start_line: p.start_line, end_line: p.end_line, content: p.content };
    const file = files.get(p.file_id)!;
    return { type: "file", file_id: file.id, media_type: file.mediaType, name: file.name };
  });
  return { parts, fileIds: [...new Set(fileIds)] };
}

/** Inside the transition: link the message's files, evicting the chat's oldest beyond the cap; bytes go after COMMIT. */
export async function linkContentFiles(ctx: CommandContext, tx: ChatTx, content: ResolvedContent): Promise<void> {
  if (content.fileIds.length === 0) return;
  const evicted = await linkFiles(tx.transaction, tx.chatId, content.fileIds, ctx.config.CHAT_MAX_ATTACHMENTS_PER_CHAT);
  if (evicted.length > 0) tx.transaction.afterCommit(() => ctx.evictFiles(evicted));
}
