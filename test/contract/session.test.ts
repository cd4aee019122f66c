/**
 * A whole session of Coder's chat clients against the service (docs/api.md "Coder
 * compatibility"): one `wrangler dev` with the chat worker on, the fake model, a database of its
 * own. The steps share one user and run in order, each calling routes exactly as Coder's Go SDK
 * (`Coder-Session-Token` header) or web UI (session cookie from the service's own origin) does,
 * and each ends by asserting that nothing it received differed from Coder's recorded shapes
 * (coder-shapes.ts). A difference does not stop the session: the next steps still run, so one run
 * lists every difference (see coder-client.ts).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { type Deployment, deployment } from "../e2e/support/deployment";
import { CoderClient, type Raw, type Socket } from "./coder-client";
import { CODER_INVALID_STATE_MESSAGE } from "./coder-shapes";

let d: Deployment;
let dev: WranglerDev;
/** The Go SDK's way in, and the web UI's. */
let sdk: CoderClient;
let ui: CoderClient;
let organizationId: string;
let watch: Socket | undefined;
let watchError = "not opened yet";

const nonce = () => crypto.randomUUID().slice(0, 8);
const text = (t: string) => ({ type: "text", text: t });
const isStatus = (status: string) => (e: Raw) => e?.type === "status" && e.status?.status === status;
const openGate = (name: string) => fetch(`${inject("fakeModelUrl")}/_gates/${name}`, { method: "POST" });

/**
 * One step of the session: its own checks, then none of what it received may differ from Coder's
 * wire. When a check fails first, the differences seen up to then go into its message, since they
 * are usually why. Frames that arrive after a step ended count for the next one.
 */
function step(name: string, run: () => Promise<void>, timeout?: number): void {
  it(
    name,
    async () => {
      let failure: unknown;
      try {
        await run();
      } catch (err) {
        failure = err;
      }
      const differences = [...sdk.take(), ...ui.take()];
      if (failure instanceof Error && differences.length > 0) {
        failure.message += `\n\nDifferences from Coder's wire in this step:\n${differences.join("\n")}`;
      }
      if (failure) throw failure;
      expect(differences, "differences from Coder's wire").toEqual([]);
    },
    timeout,
  );
}

/** The watch socket, or why it could not be opened. */
function watching(): Socket {
  if (!watch) throw new Error(`no /chats/watch socket: ${watchError}`);
  return watch;
}

beforeAll(async () => {
  d = await deployment("contract", {
    CHAT_WORKER_ENABLED: "true",
    CHAT_ROOT_CONCURRENCY: "0",
    CHAT_STREAM_SYNC_POLL_MS: "1000",
    CHAT_MAX_GENERATION_RETRIES: "2",
    CHAT_RETRY_INITIAL_DELAY_MS: "400",
    CHAT_REQUIRES_ACTION_TIMEOUT_MS: "30000",
    // Heartbeats as the runner tests have them: this suite is not about takeover.
    CHAT_HEARTBEAT_INTERVAL_MS: "2000",
    CHAT_STALE_THRESHOLD_MS: "10000",
    LOG_LEVEL: "warn",
  });
  dev = await d.start();
  sdk = new CoderClient(dev.url, { kind: "sdk", token: d.token });
  ui = new CoderClient(dev.url, { kind: "browser", token: d.token });
  const { rows } = await d.own.pool.query<{ id: string }>("SELECT id FROM organizations LIMIT 1");
  organizationId = rows[0]!.id;
}, 120_000);

afterAll(async () => {
  watch?.close();
  await d?.close();
});

describe("a Coder client's whole session", () => {
  let chatId: string;
  let stream: Socket;

  step("opens the chat list's watch socket and reads the organization's models", async () => {
    try {
      watch = await ui.open("watch");
    } catch (err) {
      watchError = String(err);
    }
    const { body } = await sdk.call("models", { organization: organizationId });
    // Coder's model picker reads `models` and throws without it.
    expect(Array.isArray(body?.models), JSON.stringify(body).slice(0, 300)).toBe(true);
    watching();
  });

  step("creates a chat and streams its first reply live: parts before the final message", async () => {
    const created = await sdk.call(
      "createChat",
      {},
      {
        body: { organization_id: organizationId, content: [text(`/slow 150 one two three four five six seven ${nonce()}`)] },
      },
    );
    chatId = created.body.id;
    stream = await ui.open("stream", { chat: chatId });
    const done = await stream.until((e) => e?.type === "message" && e.message?.role === "assistant", 30_000);
    await stream.until(isStatus("waiting"), 20_000, done);
    const parts = stream.events.slice(0, done).filter((e) => e?.type === "message_part");
    // Coder's UI renders a streamed `text` part's delta from `text`.
    expect(parts.map((e) => e.message_part?.part?.type)).toContain("text");
    await watching().until((e) => e?.kind === "created" && e.chat?.id === chatId, 10_000);
  });

  step("lists chats as the web UI pages them (q=archived:false, limit, offset) and as the SDK does", async () => {
    const second = await sdk.call("createChat", {}, { body: { organization_id: organizationId, content: [text(`second ${nonce()}`)] } });
    const first = await ui.call("listChats", {}, { query: { q: "archived:false", limit: 1, offset: 0 } });
    const next = await ui.call("listChats", {}, { query: { q: "archived:false", limit: 1, offset: 1 } });
    expect(first.body.map((c: Raw) => c.id)).toEqual([second.body.id]);
    expect(next.body.map((c: Raw) => c.id)).toEqual([chatId]);
    const all = await sdk.call("listChats");
    expect(all.body.map((c: Raw) => c.id)).toEqual(expect.arrayContaining([chatId, second.body.id]));
    await sdk.call("getChat", { chat: chatId });
  });

  step("reads the history with integer ids, pages it with before_id, and reads the prompts", async () => {
    const whole = await sdk.call("getMessages", { chat: chatId });
    const ids: Raw[] = whole.body.messages.map((m: Raw) => m.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    // Coder's UI orders messages by `b.id - a.id`: ids must be numbers, growing with the history
    // (the user's prompt before the reply to it), whichever order the page lists them in.
    expect(
      ids.every((id) => typeof id === "number"),
      JSON.stringify(ids),
    ).toBe(true);
    const byId = [...whole.body.messages].sort((a: Raw, b: Raw) => a.id - b.id);
    expect(byId.map((m: Raw) => m.role).slice(0, 2)).toEqual(["user", "assistant"]);
    // The page before the newest message holds the one before it, and whether older ones remain.
    const page = await sdk.call("getMessages", { chat: chatId }, { query: { before_id: byId.at(-1).id, limit: 1 } });
    expect(page.body.messages.map((m: Raw) => m.id)).toEqual([byId.at(-2).id]);
    expect(page.body.has_more).toBe(byId.length > 2);
    const prompts = await sdk.call("prompts", { chat: chatId });
    expect(prompts.body.prompts[0]?.text).toMatch(/^\/slow 150 one two/);
  });

  step("sends to an idle chat: the message goes into history at once", async () => {
    const from = stream.events.length;
    const sent = await sdk.call("sendMessage", { chat: chatId }, { body: { content: [text(`idle send ${nonce()}`)] } });
    expect(sent.body.queued).toBe(false);
    expect(sent.body.message?.role).toBe("user");
    // A quick echo can run and end between two of the stream's syncs (no status event): the answer
    // is what must arrive, then the chat waits again.
    await stream.until((e) => e?.type === "message" && e.message?.role === "assistant", 30_000, from);
    await expect.poll(async () => (await sdk.call("getChat", { chat: chatId })).body.status, { timeout: 20_000 }).toBe("waiting");
  });

  step("queues sends while busy, deletes one queued message and promotes another", async () => {
    const gate = `contract-q-${nonce()}`;
    const from = stream.events.length;
    await ui.call("sendMessage", { chat: chatId }, { body: { content: [text(`/gate ${gate} 20 held reply ${nonce()}`)] } });
    await stream.until(isStatus("running"), 20_000, from);
    const a = await ui.call("sendMessage", { chat: chatId }, { body: { content: [text(`queued a ${nonce()}`)], busy_behavior: "queue" } });
    const b = await ui.call("sendMessage", { chat: chatId }, { body: { content: [text(`queued b ${nonce()}`)], busy_behavior: "queue" } });
    expect([a.body.queued, b.body.queued]).toEqual([true, true]);
    await stream.until((e) => e?.type === "queue_update" && e.queued_messages?.length === 2, 10_000, from);
    await ui.call("deleteQueued", { chat: chatId, queued: a.body.queued_message.id });
    const afterDelete = stream.events.length;
    await stream.until((e) => e?.type === "queue_update" && e.queued_messages?.length === 1, 10_000, afterDelete - 1);
    // Promoting from a running chat moves it to the head and interrupts the held turn.
    await ui.call("promoteQueued", { chat: chatId, queued: b.body.queued_message.id });
    await stream.until(
      (e) => e?.type === "message" && e.message?.content?.[0]?.text === b.body.queued_message.content[0].text,
      20_000,
      from,
    );
    await openGate(gate);
    await stream.until(isStatus("waiting"), 30_000, afterDelete);
  });

  step("interrupts a running turn", async () => {
    const gate = `contract-i-${nonce()}`;
    const from = stream.events.length;
    await sdk.call("sendMessage", { chat: chatId }, { body: { content: [text(`/gate ${gate} 20 stop me here please ${nonce()}`)] } });
    await stream.until((e) => e?.type === "message_part", 20_000, from);
    const interrupted = await sdk.call("interrupt", { chat: chatId });
    expect(["interrupting", "waiting"]).toContain(interrupted.body.status);
    await stream.until(isStatus("waiting"), 20_000, from);
    await openGate(gate);
  });

  step("edits the first user message: the history resets and the chat runs again", async () => {
    const { body } = await sdk.call("getMessages", { chat: chatId });
    const firstUser = body.messages.find((m: Raw) => m.role === "user");
    const from = stream.events.length;
    const edited = await sdk.call(
      "editMessage",
      { chat: chatId, message: firstUser.id },
      { body: { content: [text(`edited ${nonce()}`)] } },
    );
    expect(edited.body.message?.role).toBe("user");
    const reset = await stream.until((e) => e?.type === "history_reset", 20_000, from);
    // The chat waited before the edit and waits after its quick rerun: the stream, which syncs
    // state, may show no status event between the two. The rerun's answer must arrive.
    await stream.until((e) => e?.type === "message" && e.message?.role === "assistant", 30_000, reset);
    await expect.poll(async () => (await sdk.call("getChat", { chat: chatId })).body.status, { timeout: 20_000 }).toBe("waiting");
  });

  step("shows a retryable model error's retry, then the recovered reply", async () => {
    const from = stream.events.length;
    await sdk.call(
      "sendMessage",
      { chat: chatId },
      { body: { content: [text(`/error 503 1 /slow 50 recovered-${nonce()} after one retry`)] } },
    );
    const at = await stream.until((e) => e?.type === "retry", 30_000, from);
    expect(stream.events[at].retry?.attempt).toBe(1);
    await stream.until(isStatus("waiting"), 30_000, at);
  });

  step("ends a turn in a terminal error: the error event, the error status, and the chat's last_error", async () => {
    const from = stream.events.length;
    await sdk.call("sendMessage", { chat: chatId }, { body: { content: [text(`/error 400 ${nonce()}`)] } });
    const at = await stream.until((e) => e?.type === "error", 30_000, from);
    expect(stream.events[at].error?.retryable).toBe(false);
    await stream.until(isStatus("error"), 20_000, from);
    const chat = await sdk.call("getChat", { chat: chatId });
    expect(chat.body.status).toBe("error");
    expect(chat.body.last_error?.message).toBeTruthy();
  });

  step("answers a client-side tool call with tool-results", async () => {
    const created = await sdk.call(
      "createChat",
      {},
      {
        body: {
          organization_id: organizationId,
          content: [text(`/tool client_lookup {"q":"${nonce()}"}`)],
          // As codersdk.NewDynamicTool sends one: the schema always present.
          unsafe_dynamic_tools: [
            {
              name: "client_lookup",
              description: "Looks a word up on the client",
              input_schema: { type: "object", properties: { q: { type: "string" } } },
            },
          ],
        },
      },
    );
    const toolChat = created.body.id;
    const s = await sdk.open("stream", { chat: toolChat });
    try {
      const at = await s.until((e) => e?.type === "action_required", 30_000);
      const call = s.events[at].action_required.tool_calls[0];
      await sdk.call(
        "toolResults",
        { chat: toolChat },
        { body: { results: [{ tool_call_id: call.tool_call_id, output: { found: true }, is_error: false }] } },
      );
      await s.until(isStatus("waiting"), 30_000, at);
      expect(call.tool_name).toBe("client_lookup");
      // The Go SDK's handlers unmarshal `args` from a JSON string.
      expect(typeof call.args, JSON.stringify(call)).toBe("string");
      await watching().until((e) => e?.kind === "action_required" && e.chat?.id === toolChat, 10_000);
    } finally {
      s.close();
    }
  });

  step("refuses what the chat's state does not allow with codersdk's error body", async () => {
    // No pending tool call on this chat: Coder's client surfaces the body's message.
    const refused = await sdk.callExpectingError(
      "toolResults",
      { chat: chatId },
      { body: { results: [{ tool_call_id: "nope", output: {}, is_error: false }] } },
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(typeof refused.body?.message).toBe("string");
  });

  step("a chat in an invalid state answers Coder's 409 until reconcile-invalid moves it to an error state", async () => {
    const created = await sdk.call("createChat", {}, { body: { organization_id: organizationId, content: [] } });
    const stuck = created.body.id;
    // Waiting with a queue matches no state of the table (docs/state-machine.md): Invalid.
    await d.own.pool.query(
      `INSERT INTO chat_queued_messages (chat_id, position, content, created_by)
       SELECT id, 0, '[{"type":"text","text":"stuck"}]'::jsonb, owner_id FROM chats WHERE id = $1`,
      [stuck],
    );
    const refused = await sdk.callExpectingError("sendMessage", { chat: stuck }, { body: { content: [text("hello?")] } });
    expect(refused.status).toBe(409);
    expect(refused.body?.message).toBe(CODER_INVALID_STATE_MESSAGE);
    const reconciled = await sdk.call("reconcileInvalid", { chat: stuck });
    expect(reconciled.body.status).toBe("error");
  });

  step("compacts a chat's context on request, then clears it after one more turn", async () => {
    const created = await sdk.call(
      "createChat",
      {},
      { body: { organization_id: organizationId, content: [text(`to compact ${nonce()}`)] } },
    );
    const id = created.body.id;
    const s = await sdk.open("stream", { chat: id });
    try {
      await s.until(isStatus("waiting"), 30_000);
      const compacted = await sdk.call("compact", { chat: id });
      expect(compacted.body.id).toBe(id);
      // The compaction is a turn of its own: the chat runs, then waits again (polled: a quick one can
      // start and end between two of the stream's syncs, which then sends no status).
      await expect.poll(async () => (await sdk.call("getChat", { chat: id })).body.status, { timeout: 30_000 }).toBe("waiting");
      // A clear needs something after the compaction's boundary.
      const next = s.events.length;
      await sdk.call("sendMessage", { chat: id }, { body: { content: [text(`after the summary ${nonce()}`)] } });
      // The stream syncs state: a quick turn may run and end between two syncs, with no status
      // event at all. Its answer is what must arrive; then the chat is waiting again.
      await s.until((e) => e?.type === "message" && e.message?.role === "assistant", 30_000, next);
      await expect.poll(async () => (await sdk.call("getChat", { chat: id })).body.status, { timeout: 20_000 }).toBe("waiting");
      const cleared = await sdk.call("clear", { chat: id });
      expect(cleared.body.status).toBe("waiting");
    } finally {
      s.close();
    }
  });

  step("archives and unarchives the chat; the archived list finds it", async () => {
    await ui.call("updateChat", { chat: chatId }, { body: { archived: true } });
    const archived = await ui.call("listChats", {}, { query: { q: "archived:true" } });
    expect(archived.body.map((c: Raw) => c.id)).toContain(chatId);
    await ui.call("updateChat", { chat: chatId }, { body: { archived: false } });
    const chat = await sdk.call("getChat", { chat: chatId });
    expect(chat.body.archived).toBe(false);
  });

  step("reads the chat's cost", async () => {
    const cost = await sdk.call("cost", { chat: chatId });
    expect(cost.body).toBeTruthy();
  });

  step("a chat that goes away closes its stream after an error frame that is an array like every other", async () => {
    const created = await sdk.call("createChat", {}, { body: { organization_id: organizationId, content: [] } });
    const gone = created.body.id;
    const s = await sdk.open("stream", { chat: gone });
    try {
      await s.until(isStatus("waiting"), 20_000);
      // What the retention purge does to an archived chat (docs/retention.md), without waiting for it.
      await d.own.pool.query("DELETE FROM chats WHERE id = $1", [gone]);
      // The close frame arrives within a sync poll; local workerd may keep the TCP connection open
      // after it (ws would wait 30 s), so the client ends it and reads the code the frame brought.
      await expect.poll(() => s.ws.readyState, { timeout: 20_000 }).not.toBe(WebSocket.OPEN);
      s.ws.terminate();
      await expect.poll(() => s.closed?.code).toBe(4404);
    } finally {
      s.close();
    }
  });

  step("heard the session on the watch socket: status and title changes of the chat", async () => {
    stream.close();
    await watching().until((e) => e?.kind === "status_change" && e.chat?.id === chatId, 10_000);
    await watching().until((e) => e?.kind === "title_change" && e.chat?.id === chatId, 10_000);
  });
});
