/**
 * The organization a new chat goes to (POST /chats), checked for its creator in the chat's object:
 * the one they name, which they must belong to (a site owner acts in every organization); else
 * the deployment's default organization if they belong to it, else the first they joined. Each
 * way is one read on the object's pool (src/accounts/organizations.ts).
 */
import { getOrganizationWithRole, chatOrganizationOf } from "../accounts/organizations";
import { effectiveRole } from "../accounts/roles";
import type { Caller } from "../accounts/authentication";
import type { Database } from "../db/database";

/**
 * `not_found`: the named organization does not exist or is not the caller's (404, as if it did
 * not exist); `none`: they belong to no organization (400).
 */
export class OrganizationUnavailableError extends Error {
  override name = "OrganizationUnavailableError";
  constructor(readonly reason: "not_found" | "none") {
    super(reason === "not_found" ? "Organization not found." : "you belong to no organization");
  }
}

export async function chatOrganizationFor(
  db: Database,
  caller: Pick<Caller, "userId" | "siteRoles">,
  named: string | undefined,
): Promise<string> {
  if (named === undefined) {
    const chosen = await chatOrganizationOf(db, caller.userId);
    if (chosen === null) throw new OrganizationUnavailableError("none");
    return chosen;
  }
  const found = await getOrganizationWithRole(db, named, caller.userId);
  if (!found || !effectiveRole(caller, found.role)) throw new OrganizationUnavailableError("not_found");
  return found.organization.id;
}
