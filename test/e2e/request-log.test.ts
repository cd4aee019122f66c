/**
 * Request logs over real HTTP against wrangler dev: every API response names its request in
 * `x-request-id` (the caller's own id when well-formed, a fresh one otherwise), the Worker writes
 * one `http_request` line per request without the token, and the ChatObject's lines for the
 * request (here the stream socket's `ws_session`) carry the same `request_id`.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { type Env, makeChat, makeEnv } from "../db/fixtures";
import { ownerToken } from "./support/owner-token";

let env: Env;
let token: string;
const base = () => `${inject("baseUrl")}/api/v2`;

beforeAll(async () => {
  env = await makeEnv({}, 4);
  token = await ownerToken(env, "request-log-e2e");
});
afterAll(() => env.pool.end());

/** The JSON log lines wrangler printed that carry `request_id`. */
function linesOf(requestId: string): Record<string, unknown>[] {
  return readFileSync(inject("e2eLogFile"), "utf8")
    .split("\n")
    .filter((line) => line.includes(requestId))
    .flatMap((line) => {
      const start = line.indexOf("{");
      try {
        return [JSON.parse(line.slice(start)) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

describe("request logs and request ids", () => {
  it("echoes a well-formed caller id, replaces a malformed one, and logs each request once without its token", async () => {
    const id = `req-${crypto.randomUUID()}`;
    const res = await fetch(`${base()}/chats`, { headers: { authorization: `Bearer ${token}`, "x-request-id": id } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe(id);

    const bad = await fetch(`${base()}/chats`, { headers: { authorization: `Bearer ${token}`, "x-request-id": "a b\u00e9" } });
    expect(bad.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    // An error response names its request too.
    const missing = await fetch(`${base()}/chats/${crypto.randomUUID()}`, { headers: { authorization: `Bearer ${token}` } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    await expect.poll(() => linesOf(id).filter((l) => l.event === "http_request").length, { timeout: 10_000 }).toBe(1);
    const [line] = linesOf(id).filter((l) => l.event === "http_request");
    expect(line).toMatchObject({ method: "GET", path: "/api/v2/chats", status: 200, user_id: env.owner.userId });
    expect(typeof line!.duration_ms).toBe("number");
    expect(JSON.stringify(linesOf(id))).not.toContain(token);
  });

  it("names the caller on a chat's route, where the chat's object authenticated it", async () => {
    const chat = await makeChat(env, "W");
    const id = `hot-${crypto.randomUUID()}`;
    const res = await fetch(`${base()}/chats/${chat.chatId}/messages`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": id },
    });
    expect(res.status).toBe(200);
    await expect.poll(() => linesOf(id).filter((l) => l.event === "http_request").length, { timeout: 10_000 }).toBe(1);
    const line = linesOf(id).find((l) => l.event === "http_request");
    expect(line).toMatchObject({ status: 200, chat_id: chat.chatId, user_id: env.owner.userId });
    expect(JSON.stringify(linesOf(id))).not.toContain(token);
  });

  it("carries the request id of a stream upgrade into the object's session line", async () => {
    const chat = await makeChat(env, "W");
    const id = `ws-${crypto.randomUUID()}`;
    const ws = new WebSocket(`${base().replace(/^http/, "ws")}/chats/${chat.chatId}/stream?coder_session_token=${token}`, {
      headers: { "x-request-id": id },
    });
    await new Promise((resolve, reject) => {
      ws.once("message", resolve);
      ws.once("error", reject);
    });
    ws.close(1000);
    await expect
      .poll(() => linesOf(id).map((l) => l.event), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(["http_request", "ws_session"]));
    const session = linesOf(id).find((l) => l.event === "ws_session")!;
    expect(session).toMatchObject({ kind: "stream", chat_id: chat.chatId, user_id: env.owner.userId, close_code: 1000 });
    const upgrade = linesOf(id).find((l) => l.event === "http_request")!;
    expect(upgrade).toMatchObject({ status: 101, chat_id: chat.chatId, path: `/api/v2/chats/${chat.chatId}/stream` });
    // The query token never reaches a log line.
    expect(JSON.stringify(linesOf(id))).not.toContain(token);
  });
});
