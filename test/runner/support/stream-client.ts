/**
 * Real WebSocket clients inside workerd: of GET /chats/{chat}/stream, collecting every event, and
 * of GET /chats/{chat}/stream/parts, collecting every part frame.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { BASE, type TestUser } from "../../worker/support/accounts";

export interface StreamEvent {
  type: string;
  chat_id: string;
  message?: { id: number; role: string; content: { type: string; text?: string }[]; revision: number };
  message_part?: { part: { type: string; text?: string }; history_version: number; generation_attempt: number; seq: number };
  status?: { status: string };
  error?: { message: string };
  retry?: { attempt: number };
  queued_messages?: { id: number }[];
  action_required?: { tool_calls: { tool_call_id: string; tool_name: string; args: string }[] };
}

export interface StreamClient {
  ws: WebSocket;
  events: StreamEvent[];
  closed: { code: number } | null;
  /** Waits until some event (from index `from`) satisfies `match`; returns its index. */
  until(match: (e: StreamEvent) => boolean, timeoutMs?: number, from?: number): Promise<number>;
}

export async function openStream(user: TestUser, chatId: string, query = ""): Promise<StreamClient> {
  const res = await SELF.fetch(`${BASE}/chats/${chatId}/stream?coder_session_token=${user.token}${query}`, {
    headers: { Upgrade: "websocket" },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const client: StreamClient = {
    ws,
    events: [],
    closed: null,
    async until(match, timeoutMs = 20_000, from = 0) {
      let found = -1;
      await expect
        .poll(
          () => {
            found = client.events.findIndex((e, i) => i >= from && match(e));
            return found;
          },
          { timeout: timeoutMs, interval: 20 },
        )
        .toBeGreaterThanOrEqual(0);
      return found;
    },
  };
  ws.addEventListener("message", (e) => {
    const frame = JSON.parse(e.data as string) as StreamEvent[];
    expect(Array.isArray(frame)).toBe(true);
    client.events.push(...frame);
  });
  ws.addEventListener("close", (e) => {
    client.closed = { code: e.code };
  });
  ws.accept();
  return client;
}

/** One frame of the parts endpoint: a part of the episode the socket selected. */
export interface PartFrame {
  history_version: number;
  generation_attempt: number;
  seq: number;
  part: { type: string; text?: string };
}

/** A parts socket, open and collecting; it follows nothing until the test sends a selection. */
export async function openParts(user: TestUser, chatId: string): Promise<{ ws: WebSocket; frames: PartFrame[] }> {
  const res = await SELF.fetch(`${BASE}/chats/${chatId}/stream/parts?coder_session_token=${user.token}`, {
    headers: { Upgrade: "websocket" },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const frames: PartFrame[] = [];
  ws.addEventListener("message", (e) => frames.push(JSON.parse(e.data as string) as PartFrame));
  ws.accept();
  return { ws, frames };
}

/** One frame of the chat list watch (docs/api.md "Chat list watch"). */
export interface WatchEvent {
  kind: string;
  chat: {
    id: string;
    title: string;
    title_source: string;
    title_updated_at: string;
    summary: string | null;
    last_turn_summary: string | null;
    summary_updated_at: string | null;
    plan_mode: "plan" | "";
    status: string;
    has_unread: boolean;
  };
}

export interface WatchClient {
  ws: WebSocket;
  events: WatchEvent[];
  /** Waits until some event about `chatId` (from index `from`) satisfies `match`; returns it. */
  until(chatId: string, match: (e: WatchEvent) => boolean, timeoutMs?: number): Promise<WatchEvent>;
}

/** The user's GET /chats/watch, open and collecting. */
export async function openWatch(user: TestUser): Promise<WatchClient> {
  const res = await SELF.fetch(`${BASE}/chats/watch?coder_session_token=${user.token}`, { headers: { Upgrade: "websocket" } });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const client: WatchClient = {
    ws,
    events: [],
    async until(chatId, match, timeoutMs = 20_000) {
      let found: WatchEvent | undefined;
      await expect
        .poll(
          () => {
            found = client.events.find((e) => e.chat.id === chatId && match(e));
            return found !== undefined;
          },
          { timeout: timeoutMs, interval: 20 },
        )
        .toBe(true);
      return found!;
    },
  };
  ws.addEventListener("message", (e) => {
    client.events.push(JSON.parse(e.data as string) as WatchEvent);
  });
  ws.accept();
  return client;
}
