/**
 * Whether the keys open sockets authenticated with still hold (docs/accounts.md "Sockets"): a
 * socket is authenticated once, when it opens, and hibernation can keep it open for days. Its
 * chat's object asks here, for all its sockets' keys in one statement, while any is open.
 */
import { eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { chats } from "../db/schema/chats";
import { apiKeys, organizationMembers, users } from "../db/schema/auth";

/** Why a key no longer authenticates a chat's socket. */
export type CredentialLapse = "revoked" | "expired" | "suspended" | "not_a_member";

/** The close reason a socket whose key lapsed is given (its close code is 4401). */
export const LAPSE_REASONS: Record<CredentialLapse, string> = {
  revoked: "the token or session was revoked",
  expired: "the token or session expired",
  suspended: "the user is suspended",
  not_a_member: "the user is no longer a member of the chat's organization",
};

/**
 * The keys among `keyIds` that no longer authenticate the owner of `chatId`, with why. With no
 * chat (a user's chat list watch, which spans their organizations) membership is not checked: the
 * watch itself only lists chats of organizations the user still belongs to.
 */
export async function lapsedCredentials(
  db: Database,
  chatId: string | null,
  keyIds: readonly string[],
  now: Date,
): Promise<Map<string, CredentialLapse>> {
  const lapsed = new Map<string, CredentialLapse>();
  if (keyIds.length === 0) return lapsed;
  const member =
    chatId === null
      ? sql<boolean>`true`
      : sql<boolean>`EXISTS (
    SELECT 1 FROM ${organizationMembers} m JOIN ${chats} c ON c.organization_id = m.organization_id
    WHERE c.id = ${chatId} AND m.user_id = ${apiKeys.userId})`;
  const rows = await db
    .select({ id: apiKeys.id, expiresAt: apiKeys.expiresAt, suspended: users.suspended, member })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(inArray(apiKeys.id, [...keyIds]));
  const found = new Map(rows.map((row) => [row.id, row]));
  for (const id of keyIds) {
    const row = found.get(id);
    if (!row) lapsed.set(id, "revoked");
    else if (row.expiresAt.getTime() <= now.getTime()) lapsed.set(id, "expired");
    else if (row.suspended) lapsed.set(id, "suspended");
    else if (!row.member) lapsed.set(id, "not_a_member");
  }
  return lapsed;
}
