/**
 * MCP server URLs through the outbound guard, over HTTP in workerd (docs/hardening.md): every
 * spelling of a local, private or metadata host refused at registration and on PATCH with
 * `url_not_allowed` and nothing written; names resolved through the project's fake resolver
 * (test/support/fake-doh.ts); and a PATCH that moves a server clearing the secrets it does not
 * send again. This project's CHAT_OUTBOUND_ALLOW exempts only its test MCP server and
 * 127.0.0.1:9, so no URL here uses those.
 */
import { describe, expect, it } from "vitest";
import { api, createTestUser, expectJson, type TestUser, unique, withDb } from "./support/accounts";

interface McpServer {
  id: string;
  url: string;
  header_names: string[];
  has_bearer_token: boolean;
}
interface ErrorBody {
  code: string;
  message: string;
  validations?: { field: string; detail: string }[];
}

const base = (u: TestUser) => `/organizations/${u.organizationId}/mcp-servers`;

async function rowsOf(organizationId: string): Promise<unknown[]> {
  return withDb(
    async (db) => (await db.$client.query("SELECT * FROM mcp_servers WHERE organization_id = $1 ORDER BY id", [organizationId])).rows,
  );
}

async function register(admin: TestUser, body: Record<string, unknown>): Promise<Response> {
  return api(base(admin), { token: admin.token, body: { name: unique("tools-"), ...body } });
}

const FORBIDDEN = [
  "http://127.0.0.1/mcp",
  "http://127.0.0.1:8080/mcp",
  "http://127.1:8080/mcp",
  "http://2130706433/mcp",
  "http://017700000001/mcp",
  "http://0177.0.0.1/mcp",
  "http://0x7f.1/mcp",
  "http://0x7f000001/mcp",
  "http://127.0.0.1.:8080/mcp",
  "http://%31%32%37.0.0.1/mcp",
  "http://0.0.0.0/mcp",
  "http://0/mcp",
  "http://[::1]/mcp",
  "http://[::]/mcp",
  "http://[::ffff:127.0.0.1]/mcp",
  "http://[::ffff:7f00:1]/mcp",
  "http://[0:0:0:0:0:ffff:7f00:1]/mcp",
  "http://[::127.0.0.1]/mcp",
  "http://[64:ff9b::127.0.0.1]/mcp",
  "http://[::ffff:169.254.169.254]/mcp",
  "http://169.254.169.254/latest/meta-data/",
  "http://2852039166/latest/meta-data/",
  "http://[fe80::1]/mcp",
  "http://10.0.0.1/mcp",
  "http://172.16.0.1/mcp",
  "http://192.168.0.1/mcp",
  "http://0xc0a80001/mcp",
  "http://100.64.0.1/mcp",
  "http://[fc00::1]/mcp",
  "http://[fd00::1]/mcp",
  "http://224.0.0.1/mcp",
  "http://255.255.255.255/mcp",
  "http://localhost:8080/mcp",
  "http://LOCALHOST/mcp",
  "http://api.localhost/mcp",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://printer.local/mcp",
  "http://intranet/mcp",
  // Names the fake resolver answers with forbidden addresses.
  "https://loopback.test/mcp",
  "https://metadata.test/mcp",
  "https://mapped.test/mcp",
  "https://nat64.test/mcp",
  "https://mixed.test/mcp",
  "https://cname.test/mcp",
];

describe("MCP server URLs", () => {
  it("refuses every spelling of a local, private or metadata host at registration, writing nothing", async () => {
    const admin = await createTestUser({ role: "admin" });
    const before = await rowsOf(admin.organizationId);
    for (const url of FORBIDDEN) {
      const err = await expectJson<ErrorBody>(await register(admin, { url, bearer_token: "s3cret" }), 400);
      expect({ url, code: err.code }).toEqual({ url, code: "url_not_allowed" });
      expect(err.message).toMatch(/^The MCP server URL is not allowed: .+ (is|resolves to) .+\.$/);
      expect(err.validations).toEqual([{ field: "url", detail: expect.any(String) }]);
    }
    expect(await rowsOf(admin.organizationId)).toEqual(before);
  });

  it("names the reason: the normalized address, what it resolves to, a name that does not resolve", async () => {
    const admin = await createTestUser({ role: "admin" });
    const message = async (url: string) => (await expectJson<ErrorBody>(await register(admin, { url }), 400)).message;
    expect(await message("http://0x7f.1/mcp")).toBe("The MCP server URL is not allowed: 127.0.0.1 is a loopback address.");
    expect(await message("http://[::ffff:a9fe:a9fe]/")).toBe(
      "The MCP server URL is not allowed: [::ffff:a9fe:a9fe] is an IPv4-mapped address of 169.254.169.254, a link-local address (cloud metadata lives there).",
    );
    expect(await message("https://private.test/mcp")).toBe(
      "The MCP server URL is not allowed: private.test resolves to 10.0.0.7, a private address.",
    );
    expect(await message("https://nxdomain.test/mcp")).toBe("The MCP server URL is not allowed: nxdomain.test has no A or AAAA record.");
    expect(await message("https://servfail.test/mcp")).toMatch(/resolving servfail\.test failed: the resolver answered DNS status 2/);
    expect(await rowsOf(admin.organizationId)).toEqual([]);
  });

  it("refuses credentials in the URL, and never echoes them", async () => {
    const admin = await createTestUser({ role: "admin" });
    for (const url of ["https://user:hunter2@mcp.example.com/mcp", "https://hunter2@mcp.example.com/mcp"]) {
      const res = await register(admin, { url });
      const text = await res.text();
      expect(res.status).toBe(400);
      const err = JSON.parse(text) as ErrorBody;
      expect(err.code).toBe("url_not_allowed");
      expect(err.message).toBe(
        "The MCP server URL is not allowed: the URL carries credentials (user:password@); send them as bearer_token or headers.",
      );
      expect(text).not.toContain("hunter2");
    }
    expect(await rowsOf(admin.organizationId)).toEqual([]);
  });

  it("accepts public addresses and names that resolve to public addresses", async () => {
    const admin = await createTestUser({ role: "admin" });
    for (const url of [
      "https://mcp.example.com/mcp",
      "https://public.test/mcp",
      "https://93.184.215.14/mcp",
      "https://[2606:4700::1111]/mcp",
    ]) {
      expect((await expectJson<McpServer>(await register(admin, { url }), 201)).url).toBe(url);
    }
  });

  it("refuses a PATCH to a forbidden URL and changes nothing", async () => {
    const admin = await createTestUser({ role: "admin" });
    const server = await expectJson<McpServer>(
      await register(admin, { url: "https://mcp.example.com/mcp", bearer_token: "s3cret", headers: { "X-Api-Key": "k" } }),
      201,
    );
    const before = await rowsOf(admin.organizationId);
    for (const url of [
      "http://169.254.169.254/",
      "http://[::ffff:127.0.0.1]:8080/mcp",
      "https://loopback.test/mcp",
      "https://u:p@mcp.example.com/mcp",
    ]) {
      const res = await api(`${base(admin)}/${server.id}`, { method: "PATCH", token: admin.token, body: { url, name: "moved" } });
      expect((await expectJson<ErrorBody>(res, 400)).code).toBe("url_not_allowed");
    }
    expect(await rowsOf(admin.organizationId)).toEqual(before);
  });

  it("a PATCH that changes the URL drops the bearer token and headers it does not send again", async () => {
    const admin = await createTestUser({ role: "admin" });
    const patch = async (id: string, body: Record<string, unknown>) =>
      expectJson<McpServer>(await api(`${base(admin)}/${id}`, { method: "PATCH", token: admin.token, body }), 200);
    const fresh = async () =>
      (
        await expectJson<McpServer>(
          await register(admin, { url: "https://mcp.example.com/mcp", bearer_token: "s3cret", headers: { "X-Api-Key": "k" } }),
          201,
        )
      ).id;

    // The same URL again, or no URL: the secrets stay.
    const a = await fresh();
    expect(await patch(a, { url: "https://mcp.example.com/mcp", name: unique("same-") })).toMatchObject({
      has_bearer_token: true,
      header_names: ["X-Api-Key"],
    });
    expect(await patch(a, { name: unique("renamed-") })).toMatchObject({ has_bearer_token: true, header_names: ["X-Api-Key"] });
    // Another URL: both go.
    expect(await patch(a, { url: "https://elsewhere.example.com/mcp" })).toMatchObject({
      url: "https://elsewhere.example.com/mcp",
      has_bearer_token: false,
      header_names: [],
    });
    const stored = await withDb(
      async (db) => (await db.$client.query("SELECT bearer_token, headers FROM mcp_servers WHERE id = $1", [a])).rows[0],
    );
    expect(JSON.stringify(stored)).not.toContain("s3cret");
    expect(stored).toMatchObject({ bearer_token: null });

    // Sent again in the same PATCH: kept as sent.
    const b = await fresh();
    expect(await patch(b, { url: "https://elsewhere.example.com/mcp", bearer_token: "n3w" })).toMatchObject({
      has_bearer_token: true,
      header_names: [],
    });
    const c = await fresh();
    expect(await patch(c, { url: "https://elsewhere.example.com/mcp", headers: { "X-Other": "v" } })).toMatchObject({
      has_bearer_token: false,
      header_names: ["X-Other"],
    });
  });
});
