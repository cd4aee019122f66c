/**
 * GET /chats/{chat}/stream over the network against wrangler dev, with the `ws` client a browser
 * stands for: the token in the query string or a cookie (a browser cannot set headers on a
 * WebSocket), frames as JSON arrays, the bootstrap, then a change made over HTTP. The shared e2e
 * server runs without the chat worker, so chats stay where requests leave them.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { type Env, makeChat, makeEnv } from "../db/fixtures";
import { ownerToken } from "./support/owner-token";

interface Event {
  type: string;
  message?: { role: string; content: { text?: string }[] };
  status?: { status: string };
  queued_messages?: unknown[];
}

let env: Env;
let token: string;
const base = () => `${inject("baseUrl")}/api/v2`;
const wsBase = () => base().replace(/^http/, "ws");

beforeAll(async () => {
  env = await makeEnv({}, 4);
  token = await ownerToken(env, "stream-e2e");
});
afterAll(() => env.pool.end());

function connect(url: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; events: Event[]; frames: unknown[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const events: Event[] = [];
    const frames: unknown[] = [];
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as unknown;
      frames.push(frame);
      if (Array.isArray(frame)) events.push(...(frame as Event[]));
    });
    ws.once("open", () => resolve({ ws, events, frames }));
    ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once("error", reject);
  });
}

describe("the stream WebSocket over the network", () => {
  it("bootstraps a client authenticated by query token, then streams a change made over HTTP", async () => {
    const chat = await makeChat(env, "W");
    const { ws, events, frames } = await connect(`${wsBase()}/chats/${chat.chatId}/stream?coder_session_token=${token}`);
    await expect.poll(() => events.some((e) => e.type === "status"), { timeout: 10_000 }).toBe(true);
    expect(frames.every(Array.isArray)).toBe(true);
    expect(events.find((e) => e.type === "status")!.status!.status).toBe("waiting");
    expect(events.filter((e) => e.type === "message").map((e) => e.message!.role)).toContain("user");

    const from = events.length;
    const sent = await fetch(`${base()}/chats/${chat.chatId}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: [{ type: "text", text: "over the wire" }] }),
    });
    expect(sent.status).toBe(200);
    await expect
      .poll(() => events.slice(from).some((e) => e.type === "message" && e.message!.content[0]?.text === "over the wire"), {
        timeout: 10_000,
      })
      .toBe(true);
    await expect.poll(() => events.slice(from).some((e) => e.type === "status" && e.status!.status === "running")).toBe(true);
    ws.close();
  });

  it("accepts the token as a cookie from the service's own origin, refuses it from another (403), and a missing token with 401", async () => {
    const chat = await makeChat(env, "W");
    const cookie = `coder_session_token=${token}`;
    await expect(connect(`${wsBase()}/chats/${chat.chatId}/stream`, { cookie, origin: "https://evil.example" })).rejects.toThrow(
      "upgrade refused: 403",
    );
    const { ws, events } = await connect(`${wsBase()}/chats/${chat.chatId}/stream`, { cookie, origin: new URL(base()).origin });
    await expect.poll(() => events.some((e) => e.type === "status"), { timeout: 10_000 }).toBe(true);
    ws.close();
    await expect(connect(`${wsBase()}/chats/${chat.chatId}/stream`)).rejects.toThrow("upgrade refused: 401");
  });
});
