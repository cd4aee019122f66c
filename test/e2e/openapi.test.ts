/**
 * GET /api/v2/openapi.json from the running service: a valid OpenAPI 3.1 document that lists every
 * route of docs/api.md, each authenticated route documenting its 401.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, inject, it } from "vitest";

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
}

/** Every route of docs/api.md (stream WebSockets excepted: OpenAPI does not describe them). */
const ROUTES: [string, string][] = [
  ["post", "/users/first"],
  ["post", "/users"],
  ["get", "/users/me"],
  ["post", "/users/{user}/keys/tokens"],
  ["get", "/users/{user}/keys/tokens"],
  ["delete", "/users/{user}/keys/{key}"],
  ["post", "/users/login"],
  ["post", "/users/logout"],
  ["get", "/users/oidc"],
  ["get", "/users/oidc/login"],
  ["get", "/users/oidc/callback"],
  ["patch", "/users/{user}"],
  ["delete", "/users/{user}"],
  ["post", "/organizations"],
  ["get", "/organizations"],
  ["get", "/organizations/{organization}/members"],
  ["post", "/organizations/{organization}/members"],
  ["patch", "/organizations/{organization}/members/{user}"],
  ["delete", "/organizations/{organization}/members/{user}"],
  ["post", "/chats"],
  ["get", "/chats"],
  ["get", "/chats/{chat}"],
  ["patch", "/chats/{chat}"],
  ["get", "/chats/{chat}/messages"],
  ["get", "/chats/{chat}/prompts"],
  ["post", "/chats/{chat}/messages"],
  ["patch", "/chats/{chat}/messages/{message}"],
  ["delete", "/chats/{chat}/queue/{queued}"],
  ["post", "/chats/{chat}/queue/{queued}/promote"],
  ["post", "/chats/{chat}/interrupt"],
  ["post", "/chats/{chat}/tool-results"],
  ["post", "/chats/{chat}/compact"],
  ["post", "/chats/{chat}/clear"],
  ["post", "/chats/{chat}/reconcile-invalid"],
  ["get", "/chats/{chat}/cost"],
  ["get", "/chats/cost/{user}/summary"],
  ["get", "/organizations/{organization}/chats/cost/summary"],
  ["post", "/chats/files"],
  ["get", "/chats/files/{file}"],
  ["get", "/organizations/{organization}/chats/models"],
  ["post", "/chats/providers"],
  ["get", "/chats/providers"],
  ["get", "/chats/providers/{id}"],
  ["patch", "/chats/providers/{id}"],
  ["delete", "/chats/providers/{id}"],
  ["post", "/organizations/{organization}/chats/model-configs"],
  ["get", "/organizations/{organization}/chats/model-configs"],
  ["get", "/organizations/{organization}/chats/model-configs/{id}"],
  ["patch", "/organizations/{organization}/chats/model-configs/{id}"],
  ["delete", "/organizations/{organization}/chats/model-configs/{id}"],
  ["get", "/organizations/{organization}/chats/model-overrides/{context}"],
  ["put", "/organizations/{organization}/chats/model-overrides/{context}"],
  ["delete", "/organizations/{organization}/chats/model-overrides/{context}"],
  ["get", "/users/me/chat-preferences"],
  ["put", "/users/me/chat-preferences"],
  ["get", "/organizations/{organization}/chats/settings"],
  ["put", "/organizations/{organization}/chats/settings"],
  ["post", "/organizations/{organization}/projects"],
  ["get", "/organizations/{organization}/projects"],
  ["get", "/organizations/{organization}/projects/{project}"],
  ["patch", "/organizations/{organization}/projects/{project}"],
  ["delete", "/organizations/{organization}/projects/{project}"],
  ["get", "/organizations/{organization}/projects/{project}/memories"],
  ["get", "/organizations/{organization}/projects/{project}/memories/{name}"],
  ["delete", "/organizations/{organization}/projects/{project}/memories/{name}"],
  ["get", "/health"],
];
const UNAUTHENTICATED = new Set(["/users/first", "/users/login", "/users/oidc", "/users/oidc/login", "/users/oidc/callback", "/health"]);

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 and lists every route with its errors", async () => {
    const res = await fetch(`${inject("baseUrl")}/api/v2/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Doc;
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    for (const [method, path] of ROUTES) {
      const op = doc.paths[`/api/v2${path}`]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      if (UNAUTHENTICATED.has(path)) expect(op?.security).toEqual([]);
      else expect(op?.responses["401"], `${method} ${path} documents 401`).toBeDefined();
    }
  });

  it("has a docs page that reads it", async () => {
    const res = await fetch(`${inject("baseUrl")}/api/v2/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("openapi.json");
  });
});
