/**
 * File metadata and the spec's link rules. "A file belongs to at most one chat"; a chat holds at
 * most `cap` files, "the chat's earliest-uploaded files are deleted to make room ... Files in the
 * same message are never evicted by that message, so only a message that is on its own larger
 * than the cap is rejected." Links are written inside the transition's transaction.
 */
import { chatFileFromRaw, type Queryable } from "./file-rows";
import type { ChatFileRow } from "../db/schema/files";
import type { StoreTransaction } from "../db/transaction";

/** A file part that names no usable file, or a message the cap cannot hold (400, field `content`). */
export class FileAttachmentError extends Error {
  override name = "FileAttachmentError";
  readonly code = "file_attachment";
  constructor(
    readonly fileIds: readonly string[],
    readonly reason: "missing" | "held_by_other_chat" | "over_cap",
  ) {
    super(
      reason === "over_cap"
        ? `the message attaches ${fileIds.length} files, more than a chat may hold`
        : `file ${fileIds.join(", ")} does not exist or cannot be attached`,
    );
  }
}

export interface NewFile {
  organizationId: string;
  ownerId: string;
  name: string;
  mediaType: string;
  sizeBytes: number;
  storageKey: string;
  id: string;
}

export async function insertFile(db: Queryable, file: NewFile): Promise<ChatFileRow> {
  const { rows } = await db.query(
    `INSERT INTO chat_files (id, organization_id, owner_id, name, media_type, size_bytes, storage_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [file.id, file.organizationId, file.ownerId, file.name, file.mediaType, file.sizeBytes, file.storageKey],
  );
  return chatFileFromRaw(rows[0]!);
}

export async function getFile(db: Queryable, id: string): Promise<ChatFileRow | undefined> {
  const { rows } = await db.query(`SELECT * FROM chat_files WHERE id = $1`, [id]);
  return rows[0] === undefined ? undefined : chatFileFromRaw(rows[0]);
}

/** The caller's own files of one organization, by id; missing ids are simply absent. */
export async function filesForAttachment(
  db: Queryable,
  ids: readonly string[],
  ownerId: string,
  organizationId: string,
): Promise<Map<string, ChatFileRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query(`SELECT * FROM chat_files WHERE id = ANY($1::uuid[]) AND owner_id = $2 AND organization_id = $3`, [
    [...new Set(ids)],
    ownerId,
    organizationId,
  ]);
  return new Map(rows.map((r) => [String(r.id), chatFileFromRaw(r)]));
}

/**
 * Links `fileIds` to `chatId` and evicts the chat's earliest other files beyond `cap`. Returns the
 * storage keys of evicted files: their bytes are deleted after COMMIT. Throws (and so rolls the
 * transition back) when a file is gone, held by another chat, or the message alone exceeds the cap.
 */
export async function linkFiles(t: StoreTransaction, chatId: string, fileIds: readonly string[], cap: number): Promise<string[]> {
  const ids = [...new Set(fileIds)];
  if (ids.length === 0) return [];
  if (cap < 1) throw new RangeError(`the attachment cap must be at least 1, got ${cap}`);
  if (ids.length > cap) throw new FileAttachmentError(ids, "over_cap");
  const linked = await t.query<{ id: string }>(
    `UPDATE chat_files SET chat_id = $1 WHERE id = ANY($2::uuid[]) AND (chat_id IS NULL OR chat_id = $1) RETURNING id`,
    [chatId, ids],
  );
  if (linked.length !== ids.length) {
    const got = new Set(linked.map((r) => r.id));
    throw new FileAttachmentError(
      ids.filter((id) => !got.has(id)),
      "held_by_other_chat",
    );
  }
  const evicted = await t.query<{ storage_key: string }>(
    `DELETE FROM chat_files WHERE id IN (
       SELECT id FROM chat_files WHERE chat_id = $1 AND NOT (id = ANY($2::uuid[]))
       ORDER BY created_at DESC, id DESC OFFSET $3)
     RETURNING storage_key`,
    [chatId, ids, cap - ids.length],
  );
  return evicted.map((r) => r.storage_key);
}

/** Of `ids`, the files linked to `chatId` (a file named by a message but held elsewhere is absent). */
export async function chatFilesByIds(db: Queryable, chatId: string, ids: readonly string[]): Promise<Map<string, ChatFileRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query(`SELECT * FROM chat_files WHERE chat_id = $1 AND id = ANY($2::uuid[])`, [chatId, [...new Set(ids)]]);
  return new Map(rows.map((r) => [String(r.id), chatFileFromRaw(r)]));
}
