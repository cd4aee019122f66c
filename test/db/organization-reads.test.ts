/**
 * The organization reads the routes make in one statement (src/accounts/organizations.ts): the
 * organization with the caller's role (requireOrganization), and where a caller's new chat goes
 * when they name no organization. Their own database: which organization is the default is
 * deployment-wide.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, chatOrganizationOf, getOrganizationWithRole } from "../../src/accounts/organizations";
import { createFirstUser, createUser } from "../../src/accounts/users";
import { organizations } from "../../src/db/schema/auth";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";

let own: OwnDatabase;
let defaultOrg: string;
beforeAll(async () => {
  own = await createOwnDatabase("organization_reads");
  defaultOrg = (await createFirstUser(own.db, { email: "owner@example.com", username: "owner", password: "s3cret-pass" }, new Date()))
    .organization.id;
});
afterAll(async () => own?.drop());

async function newOrganization(name: string): Promise<string> {
  const [row] = await own.db.insert(organizations).values({ name }).returning();
  return row!.id;
}

/** A user whose first membership is `first`, as a member. */
async function userIn(first: string): Promise<string> {
  const tag = crypto.randomUUID().slice(0, 8);
  return (
    await createUser(own.db, {
      email: `${tag}@example.com`,
      username: `u${tag}`,
      password: "s3cret-pass",
      organizationId: first,
      role: "member",
    })
  ).id;
}

describe("chatOrganizationOf", () => {
  it("is the default organization when the user belongs to it, even when joined later", async () => {
    const user = await userIn(await newOrganization("a"));
    await addMember(own.db, defaultOrg, user, "member");
    expect(await chatOrganizationOf(own.db, user)).toBe(defaultOrg);
  });

  it("is the first organization joined when the user is not in the default one", async () => {
    const first = await newOrganization("first");
    const user = await userIn(first);
    await addMember(own.db, await newOrganization("second"), user, "admin");
    expect(await chatOrganizationOf(own.db, user)).toBe(first);
  });

  it("is null for a user in no organization", async () => {
    expect(await chatOrganizationOf(own.db, crypto.randomUUID())).toBeNull();
  });
});

describe("getOrganizationWithRole", () => {
  it("gives the organization with the user's role, null role for an outsider, null for no organization", async () => {
    const org = await newOrganization("roles");
    const member = await userIn(org);
    const admin = await userIn(await newOrganization("elsewhere"));
    await addMember(own.db, org, admin, "admin");
    const outsider = await userIn(await newOrganization("outside"));

    const asMember = await getOrganizationWithRole(own.db, org, member);
    expect(asMember?.organization.id).toBe(org);
    expect(asMember?.organization.name).toBe("roles");
    expect(asMember?.role).toBe("member");
    expect((await getOrganizationWithRole(own.db, org, admin))?.role).toBe("admin");
    expect(await getOrganizationWithRole(own.db, org, outsider)).toEqual({ organization: asMember?.organization, role: null });
    expect(await getOrganizationWithRole(own.db, crypto.randomUUID(), member)).toBeNull();
  });
});
