/**
 * Quotas (docs/fairness.md "Quotas"): what one tenant may keep. Each is checked before the write it
 * bounds and answers QuotaExceededError (403 quota_exceeded), writing nothing. A check is a read
 * before the write, not a lock: writes racing past it overshoot by at most their number, which
 * the rate limits bound.
 */
import type { Queryable } from "../db/rows";
import { QuotaExceededError } from "./errors";

/** A user's unarchived root chats (subagents count against their family's quota instead). */
export async function assertChatsQuota(db: Queryable, ownerId: string, max: number): Promise<void> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM chats WHERE owner_id = $1 AND parent_chat_id IS NULL AND NOT archived LIMIT $2) held`,
    [ownerId, max],
  );
  if (Number(rows[0]?.n) >= max) {
    throw new QuotaExceededError("chats_per_user", max, `You have ${max} unarchived chats, the most you may; archive some first.`);
  }
}

/** Upload bytes held by the uploader and by the organization, with `adding` more. */
export async function assertUploadQuota(
  db: Queryable,
  upload: { ownerId: string; organizationId: string; adding: number },
  max: { perUser: number; perOrganization: number },
): Promise<void> {
  const { rows } = await db.query(
    `SELECT (SELECT coalesce(sum(size_bytes), 0) FROM chat_files WHERE owner_id = $1)::float8 AS mine,
            (SELECT coalesce(sum(size_bytes), 0) FROM chat_files WHERE organization_id = $2)::float8 AS theirs`,
    [upload.ownerId, upload.organizationId],
  );
  const mine = Number(rows[0]?.mine ?? 0);
  const theirs = Number(rows[0]?.theirs ?? 0);
  if (mine + upload.adding > max.perUser) {
    throw new QuotaExceededError(
      "upload_bytes_per_user",
      max.perUser,
      `Your uploads would take ${mine + upload.adding} bytes, more than ${max.perUser}.`,
    );
  }
  if (theirs + upload.adding > max.perOrganization) {
    throw new QuotaExceededError(
      "upload_bytes_per_organization",
      max.perOrganization,
      `The organization's uploads would take more than ${max.perOrganization} bytes.`,
    );
  }
}
