/**
 * The user a single sign-on stands for (docs/accounts.md "Single sign-on"): found by verified email,
 * or created on the first sign-in (no password: login type "oidc") as a member of the configured
 * organization. An unverified email, a domain outside the allowed ones, and a suspended or deleted
 * user are refused.
 */
import { findUserByEmail, type UserRow } from "./users";
import type { Database } from "../db/database";
import { READ_COMMITTED } from "../db/database";
import { isUniqueViolation } from "../db/pg-errors";
import { organizationMembers, organizations, users } from "../db/schema/auth";
import { eq } from "drizzle-orm";
import { SingleSignOnRefusedError } from "./errors";
import { getDefaultOrganization } from "./organizations";

export interface OidcIdentity {
  email: string | undefined;
  emailVerified: boolean | undefined;
  /** A username to start from (preferred_username, else the email's local part). */
  preferredUsername: string | undefined;
}

export interface OidcPolicy {
  allowedDomains: readonly string[];
  /** The organization new users join, by name; empty: the default organization. */
  organization: string;
}

export async function userForOidcIdentity(db: Database, identity: OidcIdentity, policy: OidcPolicy): Promise<UserRow> {
  const email = identity.email?.toLowerCase();
  if (!email || identity.emailVerified !== true) throw new SingleSignOnRefusedError("the provider did not vouch for an email address");
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (!policy.allowedDomains.includes(domain)) throw new SingleSignOnRefusedError(`accounts of ${domain} may not sign in here`);
  const existing = await findUserByEmail(db, email);
  if (existing) {
    if (existing.suspended || existing.deletedAt) throw new SingleSignOnRefusedError("this account is suspended");
    return existing;
  }
  const [org] = policy.organization
    ? await db.select().from(organizations).where(eq(organizations.name, policy.organization))
    : [await getDefaultOrganization(db)];
  if (!org) throw new SingleSignOnRefusedError("the organization new accounts join does not exist");
  const base =
    (identity.preferredUsername ?? email.slice(0, email.indexOf("@")))
      .replace(/[^a-zA-Z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 24) || "user";
  try {
    return await db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ email, username: `${base}-${crypto.randomUUID().slice(0, 6)}`, passwordHash: null, loginType: "oidc" })
        .returning();
      if (!user) throw new Error("insert into users returned no row");
      await tx.insert(organizationMembers).values({ organizationId: org.id, userId: user.id, role: "member" });
      return user;
    }, READ_COMMITTED);
  } catch (err) {
    // The same person's first sign-in, twice at once: the other created them.
    if (!isUniqueViolation(err)) throw err;
    const raced = await findUserByEmail(db, email);
    if (!raced) throw err;
    return raced;
  }
}
