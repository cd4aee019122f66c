/**
 * Tenancy sweep: every operation of the OpenAPI document, and both WebSockets, called against one
 * user's resources with credentials that must not reach them — another organization's admin, the
 * owner's own expired, revoked and synthetic attribution keys, and a suspended member of the same
 * organization. Nothing may be read (no 2xx on the victim's resources; lists show none of them)
 * and nothing may be written (the victim's rows are byte-identical afterwards).
 *
 * The operations come from the served document, so a new route cannot be forgotten: one missing
 * from SWEEP below, or with a path parameter the sweep cannot fill, fails the test.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureAttributionKey } from "../../src/accounts/synthetic-key";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../src/accounts/api-keys";
import { createModelConfig } from "../../src/model-configs/configs";
import { createProvider } from "../../src/model-configs/providers";
import { createMcpServer } from "../../src/mcp/servers";
import { setChatPreferences } from "../../src/chats/chat-preferences";
import { setModelOverride } from "../../src/model-configs/model-overrides";
import { setPersonalOverride } from "../../src/model-configs/user-model-overrides";
import { saveMemory } from "../../src/memory/memories";
import { createProject } from "../../src/projects/projects";
import { apiKeys, users } from "../../src/db/schema/auth";
import { api, BASE, createTestUser, expectJson, type TestUser, unique, withDb } from "./support/accounts";
import { SELF } from "cloudflare:test";
import { testKeys } from "../support/test-keys";

interface Victim {
  user: TestUser;
  chatId: string;
  messageId: number;
  queuedId: number;
  fileId: string;
  providerId: string;
  modelConfigId: string;
  projectId: string;
  memoryName: string;
  mcpServerId: string;
}

interface Sweep {
  /** JSON body (or raw bytes for uploads) that passes validation, so authorization decides. */
  body?: (v: Victim) => unknown;
  raw?: { contentType: string; bytes: string };
  query?: (v: Victim) => string;
  /** Allowed for any signed-in user on their own data: may answer 2xx, but never with the victim's ids. */
  self?: boolean;
}

const text = (t: string) => [{ type: "text", text: t }];

/** Every authenticated operation of the document. Keys are `METHOD path` as the document has them. */
const SWEEP: Record<string, Sweep> = {
  "POST /users": { body: () => ({ email: `${unique("x")}@example.com`, username: unique("x") }) },
  "GET /users/me": { self: true },
  "POST /users/{user}/keys/tokens": { body: () => ({ token_name: "stolen" }) },
  "GET /users/{user}/keys/tokens": {},
  "PATCH /users/{user}": { body: () => ({ suspended: true }) },
  "DELETE /users/{user}": {},
  "POST /organizations": { body: () => ({ name: unique("hostile-") }) },
  "GET /organizations": { self: true },
  "GET /organizations/{organization}/members": {},
  "POST /organizations/{organization}/members": { body: (v) => ({ user: v.user.id, role: "owner" }) },
  "PATCH /organizations/{organization}/members/{user}": { body: () => ({ role: "member" }) },
  "DELETE /organizations/{organization}/members/{user}": {},
  "DELETE /users/{user}/keys/{key}": {},
  "POST /chats": { body: (v) => ({ content: text("hi"), organization_id: v.user.organizationId }) },
  "GET /chats": { self: true },
  "GET /chats/{chat}": {},
  "PATCH /chats/{chat}": { body: () => ({ title: "pwned", archived: true }) },
  "GET /chats/{chat}/messages": {},
  "GET /chats/{chat}/prompts": {},
  "POST /chats/{chat}/messages": { body: () => ({ content: text("pwned"), busy_behavior: "interrupt" }) },
  "PATCH /chats/{chat}/messages/{message}": { body: () => ({ content: text("pwned") }) },
  "DELETE /chats/{chat}/queue/{queued}": {},
  "POST /chats/{chat}/queue/{queued}/promote": {},
  "POST /chats/{chat}/interrupt": {},
  "POST /chats/{chat}/tool-results": { body: () => ({ results: [{ tool_call_id: "call_1", output: "x" }] }) },
  "POST /chats/{chat}/compact": {},
  "POST /chats/{chat}/clear": {},
  "POST /chats/{chat}/reconcile-invalid": {},
  "GET /chats/{chat}/turns": {},
  "GET /chats/{chat}/cost": {},
  "GET /chats/cost/{user}/summary": {},
  "GET /organizations/{organization}/chats/cost/summary": {},
  "POST /chats/files": {
    raw: { contentType: "text/plain", bytes: "pwned" },
    query: (v) => `?organization=${v.user.organizationId}&name=x.txt`,
  },
  "GET /chats/files/{file}": {},
  "GET /organizations/{organization}/chats/models": {},
  "POST /chats/providers": { body: () => ({ type: "openai-compatible", name: unique("p"), base_url: "http://127.0.0.1:9/v1" }) },
  "GET /chats/providers": {},
  "GET /chats/providers/{id}": {},
  "PATCH /chats/providers/{id}": { body: () => ({ enabled: false }) },
  "DELETE /chats/providers/{id}": {},
  "POST /organizations/{organization}/chats/model-configs": { body: (v) => ({ provider_id: v.providerId, model: "m" }) },
  "GET /organizations/{organization}/chats/model-configs": {},
  "GET /organizations/{organization}/chats/model-configs/{id}": {},
  "PATCH /organizations/{organization}/chats/model-configs/{id}": { body: () => ({ enabled: false }) },
  "DELETE /organizations/{organization}/chats/model-configs/{id}": {},
  "POST /organizations/{organization}/projects": { body: () => ({ name: "intruder" }) },
  "GET /organizations/{organization}/projects": {},
  "GET /organizations/{organization}/projects/{project}": {},
  "PATCH /organizations/{organization}/projects/{project}": { body: () => ({ name: "pwned" }) },
  "DELETE /organizations/{organization}/projects/{project}": {},
  "GET /organizations/{organization}/projects/{project}/memories": {},
  "GET /organizations/{organization}/projects/{project}/memories/{name}": {},
  "DELETE /organizations/{organization}/projects/{project}/memories/{name}": {},
  "GET /users/me/chat-preferences": { self: true },
  "PUT /users/me/chat-preferences": { self: true, body: () => ({ compaction_threshold_percent: 50 }) },
  "GET /organizations/{organization}/chats/model-overrides/{context}": {},
  "PUT /organizations/{organization}/chats/model-overrides/{context}": { body: (v) => ({ model_config_id: v.modelConfigId }) },
  "DELETE /organizations/{organization}/chats/model-overrides/{context}": {},
  "POST /organizations/{organization}/mcp-servers": { body: () => ({ name: unique("mcp"), url: "http://127.0.0.1:9/mcp" }) },
  "GET /organizations/{organization}/mcp-servers": {},
  "GET /organizations/{organization}/mcp-servers/{id}": {},
  "PATCH /organizations/{organization}/mcp-servers/{id}": { body: () => ({ url: "http://127.0.0.1:9/pwned", enabled: false }) },
  "DELETE /organizations/{organization}/mcp-servers/{id}": {},
  "GET /organizations/{organization}/chats/settings": {},
  "PUT /organizations/{organization}/chats/settings": { body: () => ({ mcp_tool_search: true }) },
  // Personal overrides: the caller's own rows, named by organization; an outsider naming the victim's organization is refused.
  "GET /users/me/chats/model-overrides/{context}": { self: true, query: (v) => `?organization=${v.user.organizationId}` },
  "PUT /users/me/chats/model-overrides/{context}": {
    self: true,
    query: (v) => `?organization=${v.user.organizationId}`,
    body: (v) => ({ mode: "model", model_config_id: v.modelConfigId }),
  },
  "DELETE /users/me/chats/model-overrides/{context}": { self: true, query: (v) => `?organization=${v.user.organizationId}` },
  // Last: it revokes the intruder's own key, so every other operation is tried with it first.
  "POST /users/logout": { self: true },
};

/** Operations that need no credentials at all. */
const PUBLIC = new Set([
  "POST /users/first",
  "POST /users/login",
  "GET /users/oidc",
  "GET /users/oidc/login",
  "GET /users/oidc/callback",
  "GET /health",
  "GET /openapi.json",
  "GET /docs",
]);

function fillPath(template: string, v: Victim): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    switch (name) {
      case "chat":
        return v.chatId;
      case "message":
        return String(v.messageId);
      case "queued":
        return String(v.queuedId);
      case "file":
        return v.fileId;
      case "organization":
        return v.user.organizationId;
      case "user":
        return v.user.id;
      case "key":
        return v.user.apiKeyId;
      case "project":
        return v.projectId;
      case "context":
        return template.startsWith("/users/me/") ? "general" : "compaction";
      case "name":
        if (template.includes("/memories/")) return v.memoryName;
        throw new Error(`the sweep cannot fill {name} in ${template}: add it to fillPath`);
      case "id":
        if (template.includes("/model-configs/")) return v.modelConfigId;
        if (template.includes("/providers/")) return v.providerId;
        if (template.includes("/mcp-servers/")) return v.mcpServerId;
        throw new Error(`the sweep cannot fill {id} in ${template}: add it to fillPath`);
      default:
        throw new Error(`the sweep cannot fill {${name}} in ${template}: add it to fillPath`);
    }
  });
}

async function call(op: string, sweep: Sweep, v: Victim, token: string): Promise<Response> {
  const [method, template] = op.split(" ") as [string, string];
  const path = fillPath(template, v) + (sweep.query?.(v) ?? "");
  const body = sweep.body?.(v);
  if (sweep.raw) {
    return SELF.fetch(`${BASE}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": sweep.raw.contentType },
      body: sweep.raw.bytes,
    });
  }
  return api(path, { method, token, ...(body !== undefined ? { body } : {}) });
}

/** `op` as a browser sends it from another page: the victim's session cookie, and `page`'s Origin and Referer. */
function callWithCookie(op: string, sweep: Sweep, v: Victim, page: Record<string, string>): Promise<Response> {
  const [method, template] = op.split(" ") as [string, string];
  const path = fillPath(template, v) + (sweep.query?.(v) ?? "");
  const headers: Record<string, string> = { ...page, Cookie: `coder_session_token=${v.user.token}` };
  const json = sweep.body?.(v);
  if (sweep.raw) headers["Content-Type"] = sweep.raw.contentType;
  else if (json !== undefined) headers["Content-Type"] = "application/json";
  const body = sweep.raw ? sweep.raw.bytes : json === undefined ? undefined : JSON.stringify(json);
  return SELF.fetch(`${BASE}${path}`, { method, headers, body });
}

/** Everything of the victim's a cross-tenant call could touch, as one comparable text. */
async function victimRows(v: Victim): Promise<string> {
  return withDb(async (db) => {
    const { rows } = await db.$client.query(
      `SELECT jsonb_build_object(
         'user', (SELECT to_jsonb(u) FROM users u WHERE u.id = $1),
         'keys', (SELECT coalesce(jsonb_agg(to_jsonb(k) ORDER BY k.id), '[]') FROM api_keys k WHERE k.user_id = $1),
         'organization', (SELECT to_jsonb(o) FROM organizations o WHERE o.id = $2),
         'members', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.user_id), '[]') FROM organization_members m WHERE m.organization_id = $2),
         'chats', (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY c.id), '[]') FROM chats c WHERE c.owner_id = $1 OR c.organization_id = $2),
         'messages', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]') FROM chat_messages m JOIN chats c ON c.id = m.chat_id WHERE c.organization_id = $2),
         'queue', (SELECT coalesce(jsonb_agg(to_jsonb(q) ORDER BY q.id), '[]') FROM chat_queued_messages q JOIN chats c ON c.id = q.chat_id WHERE c.organization_id = $2),
         'files', (SELECT coalesce(jsonb_agg(to_jsonb(f) ORDER BY f.id), '[]') FROM chat_files f WHERE f.organization_id = $2),
         'configs', (SELECT coalesce(jsonb_agg(to_jsonb(mc) ORDER BY mc.id), '[]') FROM chat_model_configs mc WHERE mc.organization_id = $2),
         'provider', (SELECT to_jsonb(p) FROM chat_providers p WHERE p.id = $3),
         'projects', (SELECT coalesce(jsonb_agg(to_jsonb(p) ORDER BY p.id), '[]') FROM projects p WHERE p.organization_id = $2),
         'memories', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]') FROM project_memories m JOIN projects p ON p.id = m.project_id WHERE p.organization_id = $2),
         'mcp_servers', (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY s.id), '[]') FROM mcp_servers s WHERE s.organization_id = $2),
         'overrides', (SELECT coalesce(jsonb_agg(to_jsonb(o) ORDER BY o.context), '[]') FROM chat_organization_model_overrides o WHERE o.organization_id = $2),
         'personal_overrides', (SELECT coalesce(jsonb_agg(to_jsonb(o) ORDER BY o.context), '[]') FROM chat_user_model_overrides o WHERE o.user_id = $1 OR o.organization_id = $2),
         'preferences', (SELECT to_jsonb(p) FROM chat_user_preferences p WHERE p.user_id = $1))::text AS s`,
      [v.user.id, v.user.organizationId, v.providerId],
    );
    return rows[0].s as string;
  });
}

async function makeVictim(): Promise<Victim> {
  const user = await createTestUser({ role: "admin" });
  const { providerId, modelConfigId, projectId, mcpServerId } = await withDb(async (db) => {
    const provider = await createProvider(
      db,
      {
        type: "openai-compatible",
        name: unique("victim-"),
        baseUrl: "http://127.0.0.1:9/v1",
        apiKey: "secret",
        enabled: true,
      },
      testKeys,
    );
    const config = await createModelConfig(db, user.organizationId, { providerId: provider.id, model: "m", isDefault: true }, new Date());
    const project = await createProject(db, { organizationId: user.organizationId, ownerId: user.id, name: "victim" }, new Date());
    await saveMemory(db, project.id, { name: "secret-plan", content: "the victim's memory" }, new Date());
    await setModelOverride(db, user.organizationId, "compaction", config.id);
    await setChatPreferences(db, user.id, { compactionThresholdPercent: 42 });
    await setPersonalOverride(
      db,
      { userId: user.id, organizationId: user.organizationId, context: "general" },
      { mode: "model", modelConfigId: config.id, reasoningEffort: "high" },
    );
    const mcp = await createMcpServer(
      db,
      user.organizationId,
      {
        name: "victim-tools",
        url: "http://127.0.0.1:9/mcp",
        bearerToken: "victim-secret",
      },
      testKeys,
    );
    return { providerId: provider.id, modelConfigId: config.id, projectId: project.id, mcpServerId: mcp.id };
  });
  const file = await expectJson<{ id: string }>(
    await SELF.fetch(`${BASE}/chats/files?organization=${user.organizationId}&name=secret.txt`, {
      method: "POST",
      headers: { Authorization: `Bearer ${user.token}`, "Content-Type": "text/plain" },
      body: "the victim's secret",
    }),
    201,
  );
  // The worker is off in this project: the chat stays running, so a second message queues.
  const chat = await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content: text("first") } }), 201);
  const sent = await expectJson<{ queued_message: { id: number } }>(
    await api(`/chats/${chat.id}/messages`, {
      token: user.token,
      body: { content: [...text("second"), { type: "file", file_id: file.id }] },
    }),
    200,
  );
  const { messages } = await expectJson<{ messages: { id: number }[] }>(
    await api(`/chats/${chat.id}/messages`, { token: user.token }),
    200,
  );
  return {
    user,
    chatId: chat.id,
    messageId: messages[0]!.id,
    queuedId: sent.queued_message.id,
    fileId: file.id,
    providerId,
    modelConfigId,
    projectId,
    memoryName: "secret-plan",
    mcpServerId,
  };
}

interface Intruder {
  name: string;
  token: string;
  /** The intruder's user, when its token is a live key of a real user. */
  userId?: string;
  /** Valid credentials of another tenant (404/403 expected) or credentials that must not authenticate (401). */
  valid: boolean;
}

async function makeIntruders(v: Victim): Promise<Intruder[]> {
  const other = await createTestUser({ role: "admin" });
  const suspended = await createTestUser({ organizationId: v.user.organizationId, role: "admin" });
  return withDb(async (db) => {
    const expired = await createApiKey(db, {
      userId: v.user.id,
      tokenName: "expired",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() - 60_000),
    });
    const revoked = await createApiKey(db, {
      userId: v.user.id,
      tokenName: "revoked",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    await db.delete(apiKeys).where(and(eq(apiKeys.id, revoked.key.id), eq(apiKeys.userId, v.user.id)));
    const syntheticId = await ensureAttributionKey(db, v.user.id, new Date());
    await db.update(users).set({ suspended: true }).where(eq(users.id, suspended.id));
    return [
      { name: "another organization's admin", token: other.token, userId: other.id, valid: true },
      { name: "the owner's expired token", token: expired.token, valid: false },
      { name: "the owner's revoked token", token: revoked.token, valid: false },
      // The synthetic key's secret was discarded at mint: any secret with its id must fail.
      { name: "the owner's synthetic attribution key", token: `${syntheticId}-${"a".repeat(32)}`, valid: false },
      { name: "a suspended admin of the same organization", token: suspended.token, valid: false },
    ];
  });
}

interface Doc {
  paths: Record<string, Record<string, unknown>>;
}

let victim: Victim;
let intruders: Intruder[];
let operations: string[];

beforeAll(async () => {
  victim = await makeVictim();
  intruders = await makeIntruders(victim);
  const doc = await expectJson<Doc>(await api("/openapi.json"), 200);
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/^\/api\/v2/, "")}`),
  );
}, 60_000);

describe("tenancy sweep", () => {
  it("covers every operation of the OpenAPI document", () => {
    const missing = operations.filter((op) => !PUBLIC.has(op) && !(op in SWEEP));
    expect(missing, "operations the sweep does not know: add them to SWEEP").toEqual([]);
    const stale = Object.keys(SWEEP).filter((op) => !operations.includes(op));
    expect(stale, "SWEEP entries the document no longer has").toEqual([]);
  });

  it("no intruder reads or writes the victim's data through any operation", { timeout: 120_000 }, async () => {
    const before = await victimRows(victim);
    // Message and queue ids are small integers: a substring test would match any digits, so they
    // count as leaked only as an id field's value.
    const victimIntegers = [victim.messageId, victim.queuedId].map((n) => new RegExp(`"(id|queued_message_id)":${n}[,}]`));
    const victimIds = [
      victim.chatId,
      victim.fileId,
      victim.modelConfigId,
      victim.projectId,
      "secret-plan",
      victim.mcpServerId,
      "victim-secret",
    ];
    const holdsVictimId = (body: string) => victimIds.some((id) => body.includes(id)) || victimIntegers.some((re) => re.test(body));
    const leaks: string[] = [];
    for (const intruder of intruders) {
      for (const [op, sweep] of Object.entries(SWEEP)) {
        const res = await call(op, sweep, victim, intruder.token);
        const body = await res.text();
        const where = `${intruder.name}: ${op} -> ${res.status} ${body.slice(0, 200)}`;
        if (!intruder.valid) {
          if (res.status !== 401) leaks.push(where);
          continue;
        }
        if (sweep.self) {
          if (res.status >= 500 || holdsVictimId(body)) leaks.push(where);
        } else if (![400, 403, 404].includes(res.status) || holdsVictimId(body)) {
          leaks.push(where);
        } else if (res.status === 400) {
          // A 400 would hide the authorization answer behind validation: the sweep's bodies must pass it.
          leaks.push(`${where} (fix the sweep's body)`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(await victimRows(victim)).toBe(before);
    // The sweep's last call, POST /users/logout, revoked each valid intruder's own key: the tests
    // below get a fresh one.
    for (const intruder of intruders) {
      if (!intruder.userId) continue;
      const userId = intruder.userId;
      const fresh = await withDb((db) =>
        createApiKey(db, {
          userId,
          tokenName: unique("after-logout-"),
          loginType: TOKEN_LOGIN_TYPE,
          expiresAt: new Date(Date.now() + 3600_000),
        }),
      );
      intruder.token = fresh.token;
    }
  });

  it("a foreign page riding the victim's own session cookie changes nothing through any operation", { timeout: 120_000 }, async () => {
    const before = await victimRows(victim);
    const pages: Record<string, Record<string, string>> = {
      "a foreign Origin": { Origin: "https://evil.example" },
      "Origin: null": { Origin: "null", Referer: `${new URL(BASE).origin}/` },
      "only a foreign Referer": { Referer: "https://evil.example/csrf.html" },
      "no Origin or Referer": {},
    };
    const passed: string[] = [];
    for (const [op, sweep] of Object.entries(SWEEP)) {
      if (op.startsWith("GET ")) continue;
      for (const [name, page] of Object.entries(pages)) {
        const res = await callWithCookie(op, sweep, victim, page);
        const body = await res.text();
        if (res.status !== 403 || !body.includes('"origin_not_allowed"'))
          passed.push(`${name}: ${op} -> ${res.status} ${body.slice(0, 200)}`);
      }
    }
    expect(passed).toEqual([]);
    expect(await victimRows(victim)).toBe(before);
  });

  it("another tenant's chat answers exactly like a chat that does not exist", async () => {
    const other = intruders[0]!;
    const theirs = await api(`/chats/${victim.chatId}`, { token: other.token });
    const nobody = await api(`/chats/${crypto.randomUUID()}`, { token: other.token });
    expect(theirs.status).toBe(404);
    const [a, b] = [(await theirs.json()) as Record<string, unknown>, (await nobody.json()) as Record<string, unknown>];
    expect({ ...a, message: "", detail: "" }).toEqual({ ...b, message: "", detail: "" });
    expect(JSON.stringify(a)).not.toContain(victim.chatId);
  });

  it("both WebSockets refuse every intruder before the upgrade", async () => {
    for (const intruder of intruders) {
      for (const suffix of ["stream", "stream/parts"]) {
        const res = await SELF.fetch(`${BASE}/chats/${victim.chatId}/${suffix}?coder_session_token=${intruder.token}`, {
          headers: { Upgrade: "websocket" },
        });
        expect(res.webSocket, `${intruder.name} ${suffix}`).toBeNull();
        expect(res.status, `${intruder.name} ${suffix}`).toBe(intruder.valid ? 404 : 401);
      }
    }
  });

  it("the chat list watch refuses the credentials that must not authenticate, and tells another tenant nothing of the victim's chats", async () => {
    const open: { name: string; frames: string[]; socket: WebSocket }[] = [];
    for (const intruder of intruders) {
      const res = await SELF.fetch(`${BASE}/chats/watch?coder_session_token=${intruder.token}`, { headers: { Upgrade: "websocket" } });
      if (!intruder.valid) {
        expect(res.webSocket, intruder.name).toBeNull();
        expect(res.status, intruder.name).toBe(401);
        continue;
      }
      expect(res.status, intruder.name).toBe(101);
      const socket = res.webSocket!;
      const frames: string[] = [];
      socket.accept();
      socket.addEventListener("message", (event) => {
        frames.push(String(event.data));
      });
      open.push({ name: intruder.name, frames, socket });
    }
    // The victim's own watch, which does hear of the victim's changes: the intruders' get nothing by then.
    const own = await SELF.fetch(`${BASE}/chats/watch?coder_session_token=${victim.user.token}`, { headers: { Upgrade: "websocket" } });
    const ownSocket = own.webSocket!;
    const ownFrames: string[] = [];
    ownSocket.accept();
    ownSocket.addEventListener("message", (event) => {
      ownFrames.push(String(event.data));
    });
    const fresh = await expectJson<{ id: string }>(await api("/chats", { token: victim.user.token, body: { content: [] } }), 201);
    await expectJson(await api(`/chats/${fresh.id}`, { token: victim.user.token, method: "PATCH", body: { title: "victim's" } }), 204);
    // Create and rename may reach the watch as one read: one event with the new title, or two.
    await expect.poll(() => ownFrames.some((f) => f.includes(fresh.id) && f.includes("victim's")), { timeout: 10_000 }).toBe(true);
    for (const { name, frames, socket } of open) {
      expect(
        frames.filter((f) => f.includes(fresh.id) || f.includes(victim.chatId) || f.includes(victim.user.id)),
        name,
      ).toEqual([]);
      socket.close(1000);
    }
    ownSocket.close(1000);
  });
});
