/**
 * Organization MCP servers over HTTP (docs/mcp.md): who may manage and read them, secrets never
 * coming back, validation, and a chat's `mcp_server_ids` checked on create and update.
 */
import { describe, expect, it } from "vitest";
import { chats } from "../../src/db/schema/chats";
import { api, createTestUser, expectJson, type TestUser, unique, withDb } from "./support/accounts";
import { eq } from "drizzle-orm";
import { testKeys } from "../support/test-keys";

interface McpServer {
  id: string;
  organization_id: string;
  name: string;
  url: string;
  header_names: string[];
  has_bearer_token: boolean;
  enabled: boolean;
}
interface ErrorBody {
  code: string;
  validations?: { field: string; detail: string }[];
}

const base = (u: TestUser) => `/organizations/${u.organizationId}/mcp-servers`;
const SECRET = "s3cret-bearer-token";
const HEADER_SECRET = "header-secret-value";

async function register(admin: TestUser, body: Record<string, unknown> = {}): Promise<McpServer> {
  const res = await api(base(admin), {
    token: admin.token,
    body: {
      name: unique("tools-"),
      url: "https://mcp.example.com/mcp",
      bearer_token: SECRET,
      headers: { "X-Api-Key": HEADER_SECRET },
      ...body,
    },
  });
  return expectJson<McpServer>(res, 201);
}

describe("MCP server routes", () => {
  it("admins register, update and delete; members list and read; secrets never come back", async () => {
    const admin = await createTestUser({ role: "admin" });
    const member = await createTestUser({ organizationId: admin.organizationId });
    const created = await register(admin, { name: "search" });
    expect(created).toMatchObject({
      name: "search",
      url: "https://mcp.example.com/mcp",
      header_names: ["X-Api-Key"],
      has_bearer_token: true,
      enabled: true,
      organization_id: admin.organizationId,
    });

    const listed = await api(base(member), { token: member.token });
    const listedText = await listed.text();
    expect(listed.status).toBe(200);
    expect((JSON.parse(listedText) as McpServer[]).map((s) => s.id)).toEqual([created.id]);
    const got = await api(`${base(member)}/${created.id}`, { token: member.token });
    const gotText = await got.text();
    expect(got.status).toBe(200);
    for (const text of [listedText, gotText, JSON.stringify(created)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(HEADER_SECRET);
    }
    // Stored sealed (docs/hardening.md): no plaintext in the table, the header names readable.
    const sealed = await withDb(
      async (db) =>
        (
          await db.$client.query(
            "SELECT bearer_token, bearer_token_sealed_with, headers, headers_sealed_with FROM mcp_servers WHERE id = $1",
            [created.id],
          )
        ).rows[0],
    );
    expect(sealed).toMatchObject({ bearer_token_sealed_with: testKeys.currentId, headers_sealed_with: testKeys.currentId });
    expect(Object.keys(sealed.headers)).toEqual(["X-Api-Key"]);
    expect(JSON.stringify(sealed)).not.toContain(SECRET);
    expect(JSON.stringify(sealed)).not.toContain(HEADER_SECRET);

    // Members may not write.
    expect((await api(base(member), { token: member.token, body: { name: "x", url: "https://x.example/mcp" } })).status).toBe(403);
    expect((await api(`${base(member)}/${created.id}`, { method: "PATCH", token: member.token, body: { enabled: false } })).status).toBe(
      403,
    );
    expect((await api(`${base(member)}/${created.id}`, { method: "DELETE", token: member.token })).status).toBe(403);

    const patched = await expectJson<McpServer>(
      await api(`${base(admin)}/${created.id}`, {
        method: "PATCH",
        token: admin.token,
        body: { bearer_token: null, headers: {}, enabled: false },
      }),
      200,
    );
    expect(patched).toMatchObject({ has_bearer_token: false, header_names: [], enabled: false, name: "search" });
    const stored = await withDb(
      async (db) => (await db.$client.query("SELECT bearer_token, headers FROM mcp_servers WHERE id = $1", [created.id])).rows[0],
    );
    expect(stored).toEqual({ bearer_token: null, headers: {} });

    expect((await api(`${base(admin)}/${created.id}`, { method: "DELETE", token: admin.token })).status).toBe(204);
    expect((await api(`${base(admin)}/${created.id}`, { token: admin.token })).status).toBe(404);
    expect((await api(`${base(admin)}/${created.id}`, { method: "DELETE", token: admin.token })).status).toBe(404);
  });

  it("another organization sees nothing; names are unique per organization", async () => {
    const admin = await createTestUser({ role: "admin" });
    const other = await createTestUser({ role: "admin" });
    const server = await register(admin, { name: "shared-name" });
    expect((await api(base(admin), { token: other.token })).status).toBe(404);
    expect((await api(`${base(other)}/${server.id}`, { token: other.token })).status).toBe(404);
    expect((await api(`${base(other)}/${server.id}`, { method: "PATCH", token: other.token, body: { enabled: false } })).status).toBe(404);
    // The same name in another organization is fine; twice in one is a conflict.
    await register(other, { name: "shared-name" });
    const dup = await api(base(admin), { token: admin.token, body: { name: "shared-name", url: "https://x.example/mcp" } });
    expect((await expectJson<ErrorBody>(dup, 409)).code).toBe("already_exists");
  });

  it("refuses bad input with 400 and writes nothing", async () => {
    const admin = await createTestUser({ role: "admin" });
    const bad: [Record<string, unknown>, string][] = [
      [{ name: "a", url: "ftp://x.example/mcp" }, "url"],
      [{ name: "", url: "https://x.example/mcp" }, "name"],
      [{ name: "a", url: "https://x.example/mcp", headers: { "Mcp-Session-Id": "x" } }, "headers"],
      [{ name: "a", url: "https://x.example/mcp", headers: { "bad header": "x" } }, "headers"],
      [{ name: "a", url: "https://x.example/mcp", headers: { "X-A": "line\r\nInjected: 1" } }, "headers"],
      [{ name: "a", url: "https://x.example/mcp", headers: { "X-A": "caf\u00e9 \u2603" } }, "headers"],
      [{ name: "a", url: "https://x.example/mcp", bearer_token: "has space" }, "bearer_token"],
    ];
    for (const [body, field] of bad) {
      const res = await api(base(admin), { token: admin.token, body });
      const err = await expectJson<ErrorBody>(res, 400);
      expect(err.code).toBe("validation_failed");
      expect(err.validations?.map((v) => v.field.split(".")[0])).toContain(field);
    }
    expect(await expectJson<McpServer[]>(await api(base(admin), { token: admin.token }), 200)).toEqual([]);
  });
});

describe("a chat's mcp_server_ids", () => {
  const text = [{ type: "text", text: "hi" }];

  it("is stored on create and replaced on update when every server is an enabled server of the chat's organization", async () => {
    const admin = await createTestUser({ role: "admin" });
    const member = await createTestUser({ organizationId: admin.organizationId });
    const a = await register(admin);
    const b = await register(admin);
    const chat = await expectJson<{ id: string; mcp_server_ids: string[] }>(
      await api("/chats", { token: member.token, body: { content: text, mcp_server_ids: [a.id, b.id, a.id] } }),
      201,
    );
    expect(chat.mcp_server_ids).toEqual([a.id, b.id]);
    await expectJson(await api(`/chats/${chat.id}`, { method: "PATCH", token: member.token, body: { mcp_server_ids: [b.id] } }), 204);
    expect(
      (await expectJson<{ mcp_server_ids: string[] }>(await api(`/chats/${chat.id}`, { token: member.token }), 200)).mcp_server_ids,
    ).toEqual([b.id]);
  });

  it("an unknown, foreign or disabled server is 400 on mcp_server_ids, and nothing is written", async () => {
    const admin = await createTestUser({ role: "admin" });
    const foreignAdmin = await createTestUser({ role: "admin" });
    const own = await register(admin);
    const disabled = await register(admin, { enabled: false });
    const foreign = await register(foreignAdmin);
    const chatCount = async () =>
      withDb(async (db) => (await db.select({ id: chats.id }).from(chats).where(eq(chats.ownerId, admin.id))).length);

    for (const ids of [[crypto.randomUUID()], [foreign.id], [own.id, disabled.id]]) {
      const res = await api("/chats", { token: admin.token, body: { content: text, mcp_server_ids: ids } });
      const err = await expectJson<ErrorBody>(res, 400);
      expect(err.code).toBe("validation_failed");
      expect(err.validations?.[0]?.field).toBe("mcp_server_ids");
      expect(JSON.stringify(err)).not.toContain(foreign.name);
    }
    expect(await chatCount()).toBe(0);

    const chat = await expectJson<{ id: string }>(
      await api("/chats", { token: admin.token, body: { content: text, mcp_server_ids: [own.id] } }),
      201,
    );
    const refused = await api(`/chats/${chat.id}`, {
      method: "PATCH",
      token: admin.token,
      body: { title: "renamed", mcp_server_ids: [foreign.id] },
    });
    expect((await expectJson<ErrorBody>(refused, 400)).validations?.[0]?.field).toBe("mcp_server_ids");
    const after = await expectJson<{ title: string; mcp_server_ids: string[] }>(
      await api(`/chats/${chat.id}`, { token: admin.token }),
      200,
    );
    expect(after.mcp_server_ids).toEqual([own.id]);
    expect(after.title).not.toBe("renamed");
  });
});
