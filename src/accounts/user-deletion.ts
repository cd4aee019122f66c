/**
 * Deleting a user (docs/accounts.md): in one transaction their keys (sessions, tokens, the
 * attribution key) and memberships go, their password is cleared and they are marked suspended and
 * deleted, so nothing of theirs authenticates again; an organization they alone own refuses it
 * (LastOwnerError: make another member an owner first). The row stays, as the owner of their chats,
 * which the caller then archives (and so stops) family by family.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/database";
import { READ_COMMITTED } from "../db/database";
import { chats } from "../db/schema/chats";
import { apiKeys, organizationMembers, users } from "../db/schema/auth";
import { assertAnotherOwner, lockOrganization } from "./memberships";

/** The user's root chats left to archive; null when there is no such (undeleted) user. */
export async function deleteUser(db: Database, userId: string, now: Date): Promise<{ rootChatIds: string[] } | null> {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, userId), isNull(users.deletedAt)))
      .for("update");
    if (!user) return null;
    // The organizations they own, each locked as a membership change locks it (memberships.ts).
    const owned = await tx
      .select({ organizationId: organizationMembers.organizationId })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.userId, userId), eq(organizationMembers.role, "owner")));
    for (const { organizationId } of owned) {
      await lockOrganization(tx, organizationId);
      await assertAnotherOwner(tx, organizationId);
    }
    await tx.delete(organizationMembers).where(eq(organizationMembers.userId, userId));
    await tx.delete(apiKeys).where(eq(apiKeys.userId, userId));
    await tx.update(users).set({ suspended: true, passwordHash: null, loginType: "none", deletedAt: now }).where(eq(users.id, userId));
    const roots = await tx
      .select({ id: chats.id })
      .from(chats)
      .where(and(eq(chats.ownerId, userId), isNull(chats.parentChatId), eq(chats.archived, false)));
    return { rootChatIds: roots.map((r) => r.id) };
  }, READ_COMMITTED);
}
