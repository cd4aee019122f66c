/**
 * GET /chats/{chat}/stream (spec "Stream loop"): real WebSocket clients of the chat's object, the
 * runner driving turns against the fake model, Postgres underneath. Test config (vitest.config.ts,
 * project "runner"): sync poll every 2 s.
 */
import { env, SELF } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { createPool } from "../../src/db/client";
import { ChatStore } from "../../src/chats/store";
import { sendMessage } from "../../src/chats/transitions/send-message";
import { api, BASE, expectJson, type TestUser } from "../worker/support/accounts";
import { openStream, openWatch, type StreamEvent } from "./support/stream-client";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { newGate, openGate } from "../support/fake-model-gate";

const POLL_MS = 2_000;

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
const partsText = (events: StreamEvent[]) =>
  events
    .filter((e) => e.type === "message_part")
    .map((e) => e.message_part!.part.text ?? "")
    .join("");
const types = (events: StreamEvent[]) => events.map((e) => e.type);
const isStatus = (status: string) => (e: StreamEvent) => e.type === "status" && e.status?.status === status;

async function createChat(u: TestUser, text?: string, extra: Record<string, unknown> = {}): Promise<string> {
  const content = text === undefined ? [] : [{ type: "text", text }];
  return (await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content, ...extra } }), 201)).id;
}

async function send(u: TestUser, chatId: string, text: string, extra: Record<string, unknown> = {}) {
  return expectJson<{ queued: boolean; queued_message?: { id: number } }>(
    await api(`/chats/${chatId}/messages`, { token: u.token, body: { content: [{ type: "text", text }], ...extra } }),
    200,
  );
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("the stream WebSocket", () => {
  it("gives a client connecting mid-generation the history, then the episode's parts from seq 1, then the committed reply", async () => {
    const u = await userWithModel();
    const text = words(40, "m");
    // The reply stops after its first token until the fake model's gate opens: mid-generation.
    const gate = newGate("stream");
    const id = await createChat(u, `/gate ${gate} 20 ${text}`);
    const observer = await openStream(u, id);
    await observer.until((e) => e.type === "message_part");
    const c = await openStream(u, id);
    await c.until((e) => e.type === "message_part");
    await openGate(gate);
    await c.until(isStatus("waiting"));
    observer.ws.close();
    const ev = c.events;
    // Bootstrap: the user message, the status, a preview reset for the running attempt.
    expect(types(ev).slice(0, 3)).toEqual(["message", "status", "preview_reset"]);
    expect(ev[0]!.message!.role).toBe("user");
    expect(ev[1]!.status!.status).toBe("running");
    const parts = ev.filter((e) => e.type === "message_part").map((e) => e.message_part!);
    expect(parts.map((p) => p.seq)).toEqual(parts.map((_, i) => i + 1));
    expect(parts.every((p) => p.generation_attempt === 1)).toBe(true);
    expect(partsText(ev)).toBe(text);
    const reply = ev.find((e) => e.type === "message" && e.message!.role === "assistant");
    expect(reply).toBeDefined();
    expect(reply!.message!.content[0]!.text).toBe(text);
    c.ws.close();
  });

  it("sends two clients of one chat the same events", async () => {
    const u = await userWithModel();
    const id = await createChat(u);
    const a = await openStream(u, id);
    const b = await openStream(u, id);
    await a.until(isStatus("waiting"));
    await b.until(isStatus("waiting"));
    const turnStart = a.events.length;
    await send(u, id, `/slow 10 ${words(30, "t")}`);
    await a.until(isStatus("running"), 20_000, turnStart);
    await a.until(isStatus("waiting"), 20_000, turnStart);
    await b.until(isStatus("waiting"), 20_000, turnStart);
    await expect.poll(() => b.events).toEqual(a.events);
    expect(types(a.events)).toContain("message_part");
    a.ws.close();
    b.ws.close();
  });

  it("converges within one sync poll when every notification is lost", async () => {
    const u = await userWithModel();
    const id = await createChat(u);
    const c = await openStream(u, id);
    await c.until(isStatus("waiting"));
    // A transition committed elsewhere whose notification never reaches the object.
    const pool = createPool({ databaseUrl: env.DATABASE_URL, wsProxy: env.NEON_WS_PROXY, max: 1 });
    const sentAt = Date.now();
    try {
      await new ChatStore(pool).update(id, (tx) =>
        sendMessage(tx, { content: [{ type: "text", text: "behind your back" }], busyBehavior: "queue" }),
      );
    } finally {
      await pool.end();
    }
    await c.until((e) => e.type === "message" && e.message!.content[0]!.text === "behind your back", POLL_MS + 4_000);
    expect(Date.now() - sentAt).toBeLessThan(POLL_MS + 4_000);
    // (The status it then shows depends on whether another chat's released slot woke this one
    // meanwhile: an unowned running chat is runnable. Either way the stream ends where the row is.)
    const row = await expectJson<{ status: string }>(await api(`/chats/${id}`, { token: u.token }), 200);
    if (row.status === "running") await c.until(isStatus("running"), 1_000);
    c.ws.close();
  });

  it("sends nothing for duplicated and reordered notifications", async () => {
    const u = await userWithModel();
    const id = await createChat(u);
    const watch = await openWatch(u);
    const c = await openStream(u, id);
    await c.until(isStatus("waiting"));
    await send(u, id, "one");
    await c.until(isStatus("waiting"), 20_000, 2);
    // The last writes the turn causes: the title its prompt started, the summary after it (the
    // watch carries them; the stream sends nothing for them).
    // (Matched on the chat, not the kind: the watch's first event about a chat it had not seen is
    // `created` or `status_change`, whatever else changed with it.)
    await watch.until(id, (e) => e.chat.title_source === "generated");
    await watch.until(id, (e) => e.chat.last_turn_summary !== null);
    watch.ws.close();
    const settled = c.events.length;
    const row = await expectJson<Record<string, unknown>>(await api(`/chats/${id}`, { token: u.token }), 200);
    const payload = (over: Record<string, unknown>) => ({
      chat_id: id,
      snapshot_version: row.snapshot_version,
      worker_id: row.worker_id,
      runner_id: null,
      history_version: row.history_version,
      queue_version: row.queue_version,
      retry_state_version: row.retry_state_version,
      generation_attempt: row.generation_attempt,
      status: row.status,
      archived: false,
      ...over,
    });
    const stub = env.CHAT_OBJECT.get(env.CHAT_OBJECT.idFromName(id));
    // The latest one twice, then older ones out of order.
    await stub.notify(payload({}) as never);
    await stub.notify(payload({}) as never);
    await stub.notify(payload({ snapshot_version: 1, history_version: 1, status: "running" }) as never);
    await stub.notify(payload({ snapshot_version: 2, status: "running" }) as never);
    // Then a real change, whose notification comes after those: its events are the first ones.
    await send(u, id, "marker");
    const marked = await c.until((e) => e.type === "message" && e.message?.content[0]?.text === "marker", 20_000, settled);
    // Before the new message, at most the status it started: nothing the stale notifications caused.
    expect(c.events.slice(settled, marked).every((e) => e.type === "status" && e.status?.status === "running")).toBe(true);
    c.ws.close();
  });

  it("sends history_reset then the whole current history after an edit", async () => {
    const u = await userWithModel();
    const id = await createChat(u, "first");
    const c = await openStream(u, id);
    await c.until(isStatus("waiting"));
    const first = c.events.find((e) => e.type === "message" && e.message!.role === "user")!.message!;
    const from = c.events.length;
    await expectJson(
      await api(`/chats/${id}/messages/${first.id}`, {
        method: "PATCH",
        token: u.token,
        body: { content: [{ type: "text", text: "edited" }] },
      }),
      200,
    );
    const reset = await c.until((e) => e.type === "history_reset", 10_000, from);
    const next = c.events[reset + 1]!;
    expect(next.type).toBe("message");
    expect(next.message!.content[0]!.text).toBe("edited");
    // The stream syncs state, it is not a log: a quick turn can run and end between two syncs, so
    // no status event need follow the reset. The rerun's answer is what must arrive.
    await c.until((e) => e.type === "message" && e.message!.role === "assistant", 20_000, reset);
    const after = c.events.slice(reset).filter((e) => e.type === "message");
    expect(after.map((e) => e.message!.content[0]!.text)).toEqual(["edited", "edited"]);
    c.ws.close();
  });

  it("shows a retry, then a preview reset for the next attempt whose parts alone are delivered", async () => {
    const u = await userWithModel();
    const id = await createChat(u);
    const c = await openStream(u, id);
    await c.until(isStatus("waiting"));
    const from = c.events.length;
    // The reply after the failure is paced, so the stream's Sync learns of attempt 2 while it still
    // streams: parts are best-effort, and a reply that ends before that Sync has none to relay.
    await send(u, id, `/error 503 1 /slow 50 recovered-${crypto.randomUUID().slice(0, 8)} after one retry`);
    const retry = await c.until((e) => e.type === "retry", 20_000, from);
    // A 503 is our "server" failure; Coder's kinds have none closer than "generic".
    expect(c.events[retry]!.retry).toMatchObject({ attempt: 1, kind: "generic", reason: "server", status_code: 503 });
    await c.until(isStatus("waiting"), 20_000, retry);
    const afterRetry = c.events.slice(retry);
    expect(types(afterRetry)).toContain("preview_reset");
    const parts = afterRetry.filter((e) => e.type === "message_part");
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.every((e) => e.message_part!.generation_attempt === 2)).toBe(true);
    c.ws.close();
  });

  it("sends one error per history version", async () => {
    const u = await userWithModel();
    const id = await createChat(u);
    const c = await openStream(u, id);
    await c.until(isStatus("waiting"));
    await send(u, id, `/error 400 ${crypto.randomUUID().slice(0, 8)}`);
    const at = await c.until((e) => e.type === "error");
    // The persisted error with its structured detail, not only the message.
    expect(c.events[at]!.error).toMatchObject({ status_code: 400, retryable: false, kind: "generic", reason: "bad_request" });
    await c.until(isStatus("error"));
    // A second client bootstraps into the same error once; the first gets nothing more on a poll.
    const late = await openStream(u, id);
    await late.until((e) => e.type === "error");
    await new Promise((r) => setTimeout(r, POLL_MS + 500));
    expect(c.events.filter((e) => e.type === "error")).toHaveLength(1);
    expect(late.events.filter((e) => e.type === "error")).toHaveLength(1);
    c.ws.close();
    late.ws.close();
  });

  it("sends one action_required for a dynamic tool call", async () => {
    const u = await userWithModel();
    const id = await createChat(u, undefined, { unsafe_dynamic_tools: [{ name: "ask_user" }] });
    const c = await openStream(u, id);
    await c.until(isStatus("waiting"));
    const q = crypto.randomUUID().slice(0, 8);
    await send(u, id, `/tool ask_user {"q":"${q}"}`);
    const at = await c.until((e) => e.type === "action_required");
    expect(c.events[at]!.action_required!.tool_calls.map((t) => t.tool_name)).toEqual(["ask_user"]);
    // The arguments are a JSON string, as Coder's ChatStreamToolCall carries them.
    const args = c.events[at]!.action_required!.tool_calls[0]!.args;
    expect(typeof args).toBe("string");
    expect(JSON.parse(args)).toEqual({ q });
    await new Promise((r) => setTimeout(r, POLL_MS + 500));
    expect(c.events.filter((e) => e.type === "action_required")).toHaveLength(1);
    c.ws.close();
  });

  it("sends the full queue on every queue change", async () => {
    const u = await userWithModel();
    const id = await createChat(u);
    const c = await openStream(u, id);
    await c.until(isStatus("waiting"));
    await send(u, id, `/slow 100 ${words(30, "q")}`);
    const q1 = await send(u, id, "queued one");
    const q2 = await send(u, id, "queued two");
    expect(q1.queued && q2.queued).toBe(true);
    await c.until((e) => e.type === "queue_update" && e.queued_messages!.length === 2);
    const update = c.events.filter((e) => e.type === "queue_update").at(-1)!;
    expect(update.queued_messages!.map((m) => m.id)).toEqual([q1.queued_message!.id, q2.queued_message!.id]);
    // The turn runs 3 s more: q1 is still queued when it is deleted.
    await expectJson(await api(`/chats/${id}/queue/${q1.queued_message!.id}`, { method: "DELETE", token: u.token }), 204);
    await c.until(
      (e) => e.type === "queue_update" && e.queued_messages!.length === 1 && e.queued_messages![0]!.id === q2.queued_message!.id,
    );
    c.ws.close();
  });

  it("sends a message of more than 64 KiB whole, in order, to every socket (the paced path)", async () => {
    const u = await userWithModel();
    const id = await createChat(u);
    const clients = [await openStream(u, id), await openStream(u, id), await openStream(u, id)];
    for (const c of clients) await c.until(isStatus("waiting"));
    const starts = clients.map((c) => c.events.length);
    // About 100 KB of prompt, so its `message` frame is paced (durable-objects/chat-object/
    // paced-sends.ts, LARGE_FRAME_CHARS = 64 KiB); `/long 3` keeps the reply short, and the gate
    // holds it after its first token until every socket has that token's part: a short turn could
    // otherwise end before a loaded machine relays any part, and the order below would go unchecked.
    const gate = newGate("large-frame");
    const prompt = `/gate ${gate} 20 /long 3 ${words(12_000, "p")}`;
    expect(prompt.length).toBeGreaterThan(64 * 1024);
    await send(u, id, prompt);
    for (const [i, c] of clients.entries()) await c.until((e) => e.type === "message_part", 20_000, starts[i]!);
    await openGate(gate);
    for (const [i, c] of clients.entries()) {
      const waiting = await c.until(isStatus("waiting"), 20_000, starts[i]! + 1);
      const turn = c.events.slice(starts[i], waiting + 1);
      const messages = turn.filter((e) => e.type === "message").map((e) => [e.message!.role, e.message!.content[0]!.text]);
      expect(messages).toEqual([
        ["user", prompt],
        ["assistant", "tok1 tok2 tok3"],
      ]);
      // The large frame kept its place: the user message before the turn's status and parts.
      const userAt = turn.findIndex((e) => e.type === "message" && e.message!.role === "user");
      const runningAt = turn.findIndex(isStatus("running"));
      const firstPartAt = turn.findIndex((e) => e.type === "message_part");
      expect(userAt).toBeLessThan(firstPartAt);
      expect(runningAt).toBeGreaterThanOrEqual(0);
      c.ws.close();
    }
  });

  it("resumes a client from its cursors with exactly what it missed", async () => {
    const u = await userWithModel();
    const id = await createChat(u, "before");
    const first = await openStream(u, id);
    await first.until(isStatus("waiting"));
    first.ws.close();
    const held = await expectJson<{ history_version: number; queue_version: number; retry_state_version: number }>(
      await api(`/chats/${id}`, { token: u.token }),
      200,
    );
    await send(u, id, "while away");
    await expect
      .poll(async () => (await expectJson<{ status: string }>(await api(`/chats/${id}`, { token: u.token }), 200)).status, {
        timeout: 20_000,
      })
      .toBe("waiting");
    const resumed = await openStream(
      u,
      id,
      `&history_version=${held.history_version}&queue_version=${held.queue_version}&retry_state_version=${held.retry_state_version}&status=waiting`,
    );
    // The bootstrap is one Sync, sent as one frame: once its messages are in, all of it is.
    await resumed.until((e) => e.type === "message" && e.message!.role === "assistant");
    const messages = resumed.events.filter((e) => e.type === "message").map((e) => e.message!.content[0]!.text);
    expect(messages).toEqual(["while away", "while away"]);
    expect(types(resumed.events)).not.toContain("status");
    expect(types(resumed.events)).not.toContain("history_reset");
    resumed.ws.close();
  });

  it("refuses a malformed cursor with 400 and another user's chat with 404", async () => {
    const u = await userWithModel();
    const other = await userWithModel();
    const id = await createChat(u);
    const bad = await SELF.fetch(`${BASE}/chats/${id}/stream?coder_session_token=${u.token}&history_version=-1`, {
      headers: { Upgrade: "websocket" },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe("validation_failed");
    const foreign = await SELF.fetch(`${BASE}/chats/${id}/stream?coder_session_token=${other.token}`, {
      headers: { Upgrade: "websocket" },
    });
    expect(foreign.status).toBe(404);
  });
});
