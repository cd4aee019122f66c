import type { RawRow } from "../db/rows";
import type { ChatFileRow } from "../db/schema/files";

export type { Queryable } from "../db/rows";

export function chatFileFromRaw(r: RawRow): ChatFileRow {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    ownerId: String(r.owner_id),
    chatId: r.chat_id === null ? null : String(r.chat_id),
    name: String(r.name),
    mediaType: String(r.media_type),
    sizeBytes: Number(r.size_bytes),
    storageKey: String(r.storage_key),
    createdAt: r.created_at instanceof Date ? r.created_at : new Date(String(r.created_at)),
  };
}
