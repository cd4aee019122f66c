/**
 * What clients send (`ChatInputPart`) to what history stores (`ChatMessagePart`). Text passes
 * through; file parts are resolved against the uploaded file's metadata.
 */
import type { ChatMessagePart } from "../db/schema/chats";

export type ChatInputPart = { type: "text"; text: string } | { type: "file"; file_id: string };

export function toMessageParts(parts: readonly ChatInputPart[]): ChatMessagePart[] {
  return parts.map((part) => (part.type === "text" ? { type: "text", text: part.text } : fileNotAvailable(part.file_id)));
}

function fileNotAvailable(fileId: string): never {
  throw new FileAttachmentError(fileId);
}

/** A file part that names no usable file (400, field `content`). */
export class FileAttachmentError extends Error {
  override name = "FileAttachmentError";
  readonly code = "validation_failed";
  constructor(readonly fileId: string) {
    super(`file ${fileId} does not exist or cannot be attached`);
  }
}
