import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

interface Doc {
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
}

describe("OpenAPI document: accounts, providers and model configs", () => {
  it("lists every route with its security and error responses", async () => {
    const res = await SELF.fetch("http://chatd.test/api/v2/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Doc;
    const expected: [string, string][] = [
      ["/users/first", "post"],
      ["/users", "post"],
      ["/users/me", "get"],
      ["/users/{user}/keys/tokens", "post"],
      ["/chats/providers", "post"],
      ["/chats/providers", "get"],
      ["/chats/providers/{id}", "get"],
      ["/chats/providers/{id}", "patch"],
      ["/chats/providers/{id}", "delete"],
      ["/organizations/{organization}/chats/model-configs", "post"],
      ["/organizations/{organization}/chats/model-configs", "get"],
      ["/organizations/{organization}/chats/model-configs/{id}", "get"],
      ["/organizations/{organization}/chats/model-configs/{id}", "patch"],
      ["/organizations/{organization}/chats/model-configs/{id}", "delete"],
      ["/organizations/{organization}/chats/models", "get"],
    ];
    for (const [path, method] of expected) {
      const op = doc.paths[`/api/v2${path}`]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      if (path !== "/users/first") expect(op?.responses["401"], `${method} ${path} documents 401`).toBeDefined();
    }
    // The first user has no token yet: the only unauthenticated route here.
    expect(doc.paths["/api/v2/users/first"]?.post?.security).toEqual([]);
  });
});
