/**
 * Organizations and their members over the real routes (docs/accounts.md): creation by the site
 * owner, members added and their roles changed by admins, owners managed by owners, at least one
 * owner kept (even when two owners demote each other at once), removal ending access at once, and
 * users suspended and reactivated by the site owner.
 */
import { describe, it } from "vitest";
import { eq } from "drizzle-orm";
import { chats } from "../../src/db/schema/chats";
import { organizationMembers } from "../../src/db/schema/auth";
import { api, createTestUser, expectJson, joinOrg, type TestUser, unique, withDb } from "./support/accounts";

interface ErrorJson {
  code: string;
}
interface MemberJson {
  user_id: string;
  role: string;
}
interface OrgJson {
  id: string;
  name: string;
}

const members = async (org: string, token: string) =>
  (await expectJson<MemberJson[]>(await api(`/organizations/${org}/members`, { token }), 200)).map(
    (m) => [m.user_id, m.role] as [string, string],
  );

const status = async (res: Response) => {
  await res.body?.cancel();
  return res.status;
};

/** An organization with an owner, an admin and a member (each a user of their own). */
async function team() {
  const owner = await createTestUser({ role: "owner" });
  const org = owner.organizationId;
  const admin = await createTestUser({ organizationId: org, role: "admin" });
  const member = await createTestUser({ organizationId: org, role: "member" });
  return { org, owner, admin, member };
}

const setRole = (org: string, who: TestUser, role: string, by: TestUser) =>
  api(`/organizations/${org}/members/${who.id}`, { token: by.token, method: "PATCH", body: { role } });

describe.concurrent("organizations", () => {
  it("are created by the site owner alone, who becomes their owner; names are unique", async ({ expect }) => {
    const site = await createTestUser({ siteOwner: true });
    const name = unique("org-");
    const org = await expectJson<OrgJson>(await api("/organizations", { token: site.token, body: { name } }), 201);
    expect(await members(org.id, site.token)).toEqual([[site.id, "owner"]]);
    expect((await expectJson<ErrorJson>(await api("/organizations", { token: site.token, body: { name } }), 409)).code).toBe(
      "already_exists",
    );
    const admin = await createTestUser({ role: "admin" });
    expect(await status(await api("/organizations", { token: admin.token, body: { name: unique("org-") } }))).toBe(403);
  });

  it("are listed for their members; an outsider does not learn they exist", async ({ expect }) => {
    const { org, member } = await team();
    const outsider = await createTestUser();
    const listed = await expectJson<OrgJson[]>(await api("/organizations", { token: member.token }), 200);
    expect(listed.map((o) => o.id)).toEqual([org]);
    expect(await status(await api(`/organizations/${org}/members`, { token: outsider.token }))).toBe(404);
  });
});

describe.concurrent("members and roles", () => {
  it("admins add members and promote them to admin; a member may not; owners alone grant owner", async ({ expect }) => {
    const { org, owner, admin, member } = await team();
    const newcomer = await createTestUser();
    expect(await status(await api(`/organizations/${org}/members`, { token: member.token, body: { user: newcomer.id } }))).toBe(403);
    const added = await expectJson<MemberJson>(
      await api(`/organizations/${org}/members`, { token: admin.token, body: { user: newcomer.username } }),
      201,
    );
    expect(added).toMatchObject({ user_id: newcomer.id, role: "member" });
    expect(
      (await expectJson<ErrorJson>(await api(`/organizations/${org}/members`, { token: admin.token, body: { user: newcomer.id } }), 409))
        .code,
    ).toBe("already_exists");
    expect(await status(await setRole(org, newcomer, "admin", admin))).toBe(200);
    expect(await status(await setRole(org, newcomer, "owner", admin))).toBe(403);
    expect(
      await status(
        await api(`/organizations/${org}/members`, { token: admin.token, body: { user: (await createTestUser()).id, role: "owner" } }),
      ),
    ).toBe(403);
    expect(await status(await setRole(org, newcomer, "owner", owner))).toBe(200);
    // An admin may not demote or remove an owner.
    expect(await status(await setRole(org, newcomer, "member", admin))).toBe(403);
    expect(await status(await api(`/organizations/${org}/members/${newcomer.id}`, { token: admin.token, method: "DELETE" }))).toBe(403);
    expect(new Map(await members(org, member.token))).toEqual(
      new Map([
        [owner.id, "owner"],
        [admin.id, "admin"],
        [member.id, "member"],
        [newcomer.id, "owner"],
      ]),
    );
  });

  it("keeps at least one owner: the last may not step down or leave; with two, one may", async ({ expect }) => {
    const { org, owner } = await team();
    expect((await expectJson<ErrorJson>(await setRole(org, owner, "admin", owner), 409)).code).toBe("last_owner");
    expect(
      (await expectJson<ErrorJson>(await api(`/organizations/${org}/members/me`, { token: owner.token, method: "DELETE" }), 409)).code,
    ).toBe("last_owner");
    const second = await createTestUser();
    await joinOrg(second.id, org, "owner");
    expect(await status(await setRole(org, owner, "admin", owner))).toBe(200);
    expect(new Map(await members(org, second.token)).get(owner.id)).toBe("admin");
  });

  it("two owners demoting each other at once leave one owner", async ({ expect }) => {
    const { org, owner } = await team();
    const second = await createTestUser();
    await joinOrg(second.id, org, "owner");
    const answers = await Promise.all([setRole(org, second, "member", owner), setRole(org, owner, "member", second)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const owners = (await members(org, owner.token)).filter(([, role]) => role === "owner");
    expect(owners).toHaveLength(1);
  });

  it("removing a member ends their access to the organization at once; anyone may leave", async ({ expect }) => {
    const { org, admin, member } = await team();
    const configs = () => api(`/organizations/${org}/chats/model-configs`, { token: member.token });
    expect(await status(await configs())).toBe(200);
    expect(await status(await api(`/organizations/${org}/members/${member.id}`, { token: admin.token, method: "DELETE" }))).toBe(204);
    expect(await status(await configs())).toBe(404);
    expect(await status(await api(`/organizations/${org}/members/me`, { token: admin.token, method: "DELETE" }))).toBe(204);
    expect(await status(await api(`/organizations/${org}/members`, { token: admin.token }))).toBe(404);
  });
});

describe.concurrent("a removed member's chats", () => {
  it("answer as missing on their routes within CHAT_AUTH_CACHE_MS (2 s here) and leave the chat list at once", async ({ expect }) => {
    const { org, admin, member } = await team();
    const chat = await expectJson<{ id: string }>(
      await api("/chats", { token: member.token, body: { content: [], organization_id: org } }),
      201,
    );
    const listed = async () => (await expectJson<{ id: string }[]>(await api("/chats", { token: member.token }), 200)).map((c) => c.id);
    expect(await status(await api(`/chats/${chat.id}`, { token: member.token }))).toBe(200);
    expect(await listed()).toContain(chat.id);
    expect(await status(await api(`/organizations/${org}/members/${member.id}`, { token: admin.token, method: "DELETE" }))).toBe(204);
    expect(await listed()).not.toContain(chat.id);
    await expect
      .poll(async () => status(await api(`/chats/${chat.id}`, { token: member.token })), { timeout: 8_000, interval: 200 })
      .toBe(404);
    const send = await api(`/chats/${chat.id}/messages`, {
      token: member.token,
      body: { content: [{ type: "text", text: "still here?" }] },
    });
    expect(await status(send)).toBe(404);
    // Back in the organization, the chat is theirs again.
    await joinOrg(member.id, org, "member");
    await expect
      .poll(async () => status(await api(`/chats/${chat.id}`, { token: member.token })), { timeout: 8_000, interval: 200 })
      .toBe(200);
  });
});

describe.concurrent("suspension", () => {
  it("the site owner suspends a user (their keys stop at once) and reactivates them; nobody else may, nor suspend themself", async ({
    expect,
  }) => {
    const site = await createTestUser({ siteOwner: true });
    const user = await createTestUser();
    const admin = await createTestUser({ organizationId: user.organizationId, role: "admin" });
    expect(await status(await api(`/users/${user.id}`, { token: admin.token, method: "PATCH", body: { suspended: true } }))).toBe(403);
    const suspended = await expectJson<{ suspended: boolean }>(
      await api(`/users/${user.id}`, { token: site.token, method: "PATCH", body: { suspended: true } }),
      200,
    );
    expect(suspended.suspended).toBe(true);
    expect(await status(await api("/users/me", { token: user.token }))).toBe(401);
    await expectJson(await api(`/users/${user.id}`, { token: site.token, method: "PATCH", body: { suspended: false } }), 200);
    expect(await status(await api("/users/me", { token: user.token }))).toBe(200);
    expect(
      (await expectJson<ErrorJson>(await api("/users/me", { token: site.token, method: "PATCH", body: { suspended: true } }), 409)).code,
    ).toBe("cannot_suspend_self");
  });
});

describe.concurrent("deleting a user", () => {
  it("ends every key and membership of theirs and archives their chats; refused to anyone but the site owner, on themself, and once done", async ({
    expect,
  }) => {
    const site = await createTestUser({ siteOwner: true });
    const { org, owner, member } = await team();
    const chat = await expectJson<{ id: string }>(
      await api("/chats", { token: member.token, body: { content: [{ type: "text", text: "mine" }], organization_id: org } }),
      201,
    );
    expect(await status(await api(`/users/${member.id}`, { token: owner.token, method: "DELETE" }))).toBe(403);
    expect((await expectJson<ErrorJson>(await api("/users/me", { token: site.token, method: "DELETE" }), 409)).code).toBe(
      "cannot_delete_self",
    );
    const report = await expectJson<{ archived_chat_ids: string[]; not_archived: unknown[] }>(
      await api(`/users/${member.id}`, { token: site.token, method: "DELETE" }),
      200,
    );
    // The chat was running (the worker is off here): it was interrupted, then archived.
    expect(report).toEqual({ archived_chat_ids: [chat.id], not_archived: [] });
    expect(await status(await api("/users/me", { token: member.token }))).toBe(401);
    const [row] = await withDb((db) => db.select({ archived: chats.archived }).from(chats).where(eq(chats.id, chat.id)));
    expect(row?.archived).toBe(true);
    expect(await withDb((db) => db.select().from(organizationMembers).where(eq(organizationMembers.userId, member.id)))).toEqual([]);
    expect(await status(await api(`/users/${member.id}`, { token: site.token, method: "DELETE" }))).toBe(404);
  });

  it("refuses to delete an organization's last owner", async ({ expect }) => {
    const site = await createTestUser({ siteOwner: true });
    const { owner } = await team();
    expect((await expectJson<ErrorJson>(await api(`/users/${owner.id}`, { token: site.token, method: "DELETE" }), 409)).code).toBe(
      "last_owner",
    );
    expect(await status(await api("/users/me", { token: owner.token }))).toBe(200);
  });
});
