/**
 * The file bytes a prompt carries, read during generation preparation. Only files linked to this
 * chat are read: a message part naming any other file (evicted, or another chat's or user's)
 * becomes the expired placeholder, so the prompt never carries bytes the chat does not hold. Only
 * user uploads the transport accepts, at a size it accepts, are read (src/llm/file-media-types.ts),
 * newest message first, within MAX_PROMPT_FILE_BYTES; the rest are named in text.
 */
import { chatFilesByIds } from "../files/files";
import type { Queryable } from "../files/file-rows";
import { type HistoryRow, promptRows } from "../llm/active-history";
import { acceptsFileMediaType, fileSizeLimit } from "../llm/file-media-types";
import type { FileContent } from "../llm/prompt";
import type { ModelTransport } from "../llm/transport";
import { errorText, logger } from "../log/log";

/**
 * Bytes of file content in one prompt. Under Anthropic's 32 MB request limit once base64 (4/3) and
 * the rest of the request are added, and a bounded share of a Worker's 128 MB memory.
 */
export const MAX_PROMPT_FILE_BYTES = 16 * 1024 * 1024;

/** The object's R2 bucket, narrowed to what preparation needs. */
export interface FileReader {
  /** The object's bytes, or null when storage no longer has it. */
  read(storageKey: string): Promise<Uint8Array | null>;
}

/** What r2FileReader needs of an R2 bucket (structural, so Node-side code can type-check this file). */
export interface ObjectGetter {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
}

/** The reader over an R2 bucket (the object's FILES binding). */
export function r2FileReader(bucket: ObjectGetter): FileReader {
  return {
    async read(storageKey) {
      const object = await bucket.get(storageKey);
      return object === null ? null : new Uint8Array(await object.arrayBuffer());
    },
  };
}

export interface PromptFiles {
  evictedFileIds: Set<string>;
  fileContents: Map<string, FileContent>;
}

export async function loadPromptFiles(
  db: Queryable,
  reader: FileReader,
  chatId: string,
  history: readonly HistoryRow[],
  transport: ModelTransport,
): Promise<PromptFiles> {
  const rows = promptRows(history);
  const named = rows.flatMap((row) => row.content.flatMap((part) => (part.type === "file" ? [part.file_id] : [])));
  const linked = await chatFilesByIds(db, chatId, named);
  const evictedFileIds = new Set(named.filter((id) => !linked.has(id)));
  const fileContents = new Map<string, FileContent>();

  // Newest first: when the budget runs out, the oldest attachments are the ones named in text.
  const userFiles = rows
    .filter((row) => row.role === "user")
    .reverse()
    .flatMap((row) => row.content.flatMap((part) => (part.type === "file" ? [part.file_id] : [])));
  let budget = MAX_PROMPT_FILE_BYTES;
  for (const id of new Set(userFiles)) {
    const file = linked.get(id);
    if (!file || !acceptsFileMediaType(transport, file.mediaType)) continue;
    if (file.sizeBytes > fileSizeLimit(transport, file.mediaType) || file.sizeBytes > budget) continue;
    let data: Uint8Array | null;
    try {
      data = await reader.read(file.storageKey);
    } catch (err) {
      // A storage hiccup costs this call the bytes, not the turn: the file is named in text.
      logger.warn("prompt_file_read_failed", { chat_id: chatId, file_id: id, error: errorText(err) });
      continue;
    }
    if (data === null) {
      evictedFileIds.add(id); // "missing in R2" reads as evicted
      continue;
    }
    budget -= data.byteLength;
    fileContents.set(id, { data, mediaType: file.mediaType });
  }
  return { evictedFileIds, fileContents };
}
