/**
 * Token scopes (docs/accounts.md "Scopes"): a chat_model_config:read token reads model configs and
 * discovers models, and every other route, in the Worker and in the chat objects, REST and
 * WebSocket, refuses it with 403 insufficient_scope. A full token may mint one; it may mint none.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, BASE, createTestUser, expectJson } from "./support/accounts";

interface ErrorJson {
  code: string;
}

describe("a model-configuration read token", () => {
  it("reads model configs and models, and nothing else", async () => {
    const admin = await createTestUser({ role: "admin" });
    const org = admin.organizationId;
    const chat = await expectJson<{ id: string }>(await api("/chats", { token: admin.token, body: { content: [] } }), 201);
    const minted = await expectJson<{ key: string }>(
      await api("/users/me/keys/tokens", { token: admin.token, body: { token_name: "models-only", scope: "chat_model_config:read" } }),
      201,
    );
    const read = minted.key;
    const keys = await expectJson<{ token_name: string; scope: string }[]>(await api("/users/me/keys/tokens", { token: admin.token }), 200);
    expect(keys.find((k) => k.token_name === "models-only")?.scope).toBe("chat_model_config:read");

    for (const path of [`/organizations/${org}/chats/models`, `/organizations/${org}/chats/model-configs`]) {
      const res = await api(path, { token: read });
      expect(res.status, path).toBe(200);
      await res.body?.cancel();
    }

    const refused: [string, { method?: string; body?: unknown }][] = [
      ["/users/me", {}],
      ["/users/me/keys/tokens", { body: { token_name: "escalate" } }],
      ["/chats", {}],
      ["/chats", { body: { content: [] } }],
      [`/chats/${chat.id}`, {}],
      [`/chats/${chat.id}/messages`, { body: { content: [{ type: "text", text: "hi" }] } }],
      [`/organizations/${org}/chats/model-configs`, { body: { provider_id: crypto.randomUUID(), model: "m" } }],
      [`/organizations/${org}/projects`, {}],
      [`/organizations/${org}/members`, {}],
      ["/users/logout", { method: "POST" }],
    ];
    for (const [path, init] of refused) {
      const res = await api(path, { token: read, ...init });
      const body = await expectJson<ErrorJson>(res, 403).catch((err: unknown) => {
        throw new Error(`${init.method ?? (init.body ? "POST" : "GET")} ${path}: ${String(err)}`);
      });
      expect(body.code, path).toBe("insufficient_scope");
    }

    const upgrade = await SELF.fetch(`${BASE}/chats/${chat.id}/stream?coder_session_token=${read}`, { headers: { Upgrade: "websocket" } });
    expect(upgrade.webSocket).toBeNull();
    expect((await expectJson<ErrorJson>(upgrade, 403)).code).toBe("insufficient_scope");
    // The read token was not signed out by its refused logout.
    expect((await api(`/organizations/${org}/chats/models`, { token: read })).status).toBe(200);
  });

  it("refuses a scope it does not know", async () => {
    const user = await createTestUser();
    const res = await api("/users/me/keys/tokens", { token: user.token, body: { token_name: "x", scope: "admin" } });
    expect((await expectJson<ErrorJson>(res, 400)).code).toBe("validation_failed");
  });
});
