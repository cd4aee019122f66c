/**
 * Chats run by themselves: the ChatObject acquires its chat on the ownership hint, its runner
 * drives the turn through the real AI SDK provider against the fake model over HTTP, and commits
 * through the state machine. Test config (vitest.config.ts, project "runner"): 2 s heartbeats,
 * 10 s stale threshold, 6 s requires-action deadline, 2 generation retries.
 */
import { afterAll, describe, expect, it } from "vitest";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { openStream } from "./support/stream-client";
import { newGate, openGate } from "../support/fake-model-gate";
import { turnRequestsWith } from "../support/fake-model-requests";

interface Chat {
  id: string;
  status: string;
  last_error: { message: string } | null;
  retry_state: unknown;
  generation_attempt: number;
  requires_action_deadline_at: string | null;
}
interface Message {
  id: number;
  role: string;
  created_at: string;
  content: { type: string; text?: string; tool_call_id?: string; tool_name?: string; result?: unknown }[];
}

const nonce = () => crypto.randomUUID().slice(0, 8);

/**
 * A chat whose reply stops after its first token, behind a gate of the fake model (`/gate`), until
 * the test opens it: "mid-generation" as a state, not a moment guessed with a sleep.
 */
async function startHeld(u: TestUser, words: string): Promise<{ id: string; open: () => Promise<void> }> {
  const gate = newGate("turns");
  const id = await start(u, `/gate ${gate} 20 ${words} ${nonce()}`);
  // The first token has reached the chat's object once a stream client gets it.
  const client = await openStream(u, id);
  await client.until((e) => e.type === "message_part" && (e.message_part?.part.text ?? "").length > 0);
  client.ws.close();
  return { id, open: () => openGate(gate) };
}

async function chatOf(user: TestUser, id: string): Promise<Chat> {
  return expectJson<Chat>(await api(`/chats/${id}`, { token: user.token }), 200);
}

async function messagesOf(user: TestUser, id: string): Promise<Message[]> {
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages;
}

async function until(user: TestUser, id: string, status: string, timeoutMs = 20_000): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).status, { timeout: timeoutMs, interval: 100 }).toBe(status);
  return chatOf(user, id);
}

const textOf = (m: Message) =>
  m.content
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");

async function start(user: TestUser, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  return (
    await expectJson<{ id: string }>(await api("/chats", { token: user.token, body: { content: [{ type: "text", text }], ...extra } }), 201)
  ).id;
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("a chat runs by itself", () => {
  it("runs a full turn: the model's reply is committed and the chat waits", async () => {
    const u = await userWithModel();
    const id = await start(u, `hello world ${nonce()}`);
    await until(u, id, "waiting");
    const msgs = await messagesOf(u, id);
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(msgs[1]!)).toBe(textOf(msgs[0]!));
  });

  it("queues a message sent while running and promotes it when the turn finishes", async () => {
    const u = await userWithModel();
    const id = await start(u, `/slow 60 ${Array.from({ length: 30 }, (_, i) => `t${i}`).join(" ")} ${nonce()}`);
    const sent = await expectJson<{ queued: boolean }>(
      await api(`/chats/${id}/messages`, { token: u.token, body: { content: [{ type: "text", text: "second" }] } }),
      200,
    );
    expect(sent.queued).toBe(true);
    await until(u, id, "waiting");
    const msgs = await messagesOf(u, id);
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(textOf(msgs[3]!)).toBe("second");
  });

  it("keeps the partial text of a generation interrupted mid-stream", async () => {
    const u = await userWithModel();
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    const held = await startHeld(u, words);
    await expectJson(await api(`/chats/${held.id}/interrupt`, { method: "POST", token: u.token }), 200);
    await until(u, held.id, "waiting");
    await held.open();
    const msgs = await messagesOf(u, held.id);
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant"]);
    // Exactly what had streamed: the first token, which the gate let through.
    expect(textOf(msgs[1]!).trim()).toBe("w0");
  });

  it("ends a turn that calls a tool at every step at the step limit (3 in this project), after the last step's tool ran", async () => {
    const u = await userWithModel();
    const projects = await api(`/organizations/${u.organizationId}/projects`, { token: u.token, body: { name: `p-${nonce()}` } });
    const project = (await expectJson<{ id: string }>(projects, 201)).id;
    // The fake model calls read_memory again after every result: only the step limit ends the turn.
    const tag = nonce();
    const id = await start(u, `/tool-loop read_memory {"name":"missing-${tag}"}`, { project_id: project });
    await until(u, id, "waiting");
    const steps = ["assistant", "tool"];
    expect((await messagesOf(u, id)).map((m) => m.role)).toEqual(["user", ...steps, ...steps, ...steps]);
    expect(await turnRequestsWith(tag)).toHaveLength(3);
  });

  it("retries retryable failures with visible retry state, then succeeds", async () => {
    const u = await userWithModel();
    const id = await start(u, `/error 503 2 recovered ${nonce()}`);
    await expect.poll(async () => (await chatOf(u, id)).retry_state, { timeout: 10_000, interval: 50 }).not.toBeNull();
    await until(u, id, "waiting");
    const msgs = await messagesOf(u, id);
    expect(textOf(msgs[1]!)).toContain("recovered");
  });

  it("ends in error when retries are exhausted", async () => {
    const u = await userWithModel();
    const id = await start(u, `/error 503 always-${nonce()}`);
    const chat = await until(u, id, "error");
    expect(chat.last_error?.message).toMatch(/503/);
    expect(chat.generation_attempt).toBe(3);
  });

  it("ends in error at once on a non-retryable failure", async () => {
    const u = await userWithModel();
    const id = await start(u, `/error 400 ${nonce()}`);
    const chat = await until(u, id, "error");
    expect(chat.last_error?.message).toMatch(/400/);
    expect(chat.generation_attempt).toBe(1);
  });

  it("waits for a dynamic tool's result, then continues the turn", async () => {
    const u = await userWithModel();
    const tools = {
      unsafe_dynamic_tools: [
        { name: "ask_user", description: "asks", input_schema: { type: "object", properties: { q: { type: "string" } } } },
      ],
    };
    const id = await start(u, `/tool ask_user {"q":"${nonce()}"}`, tools);
    await until(u, id, "requires_action");
    const call = (await messagesOf(u, id)).flatMap((m) => m.content).find((p) => p.type === "tool-call")!;
    await expectJson(
      await api(`/chats/${id}/tool-results`, { token: u.token, body: { results: [{ tool_call_id: call.tool_call_id, output: "yes" }] } }),
      204,
    );
    await until(u, id, "waiting");
    const last = (await messagesOf(u, id)).at(-1)!;
    expect(textOf(last)).toContain("tool result received");
  });

  it("cancels the pending tool call at the deadline and continues the turn", async () => {
    const u = await userWithModel();
    const tools = { unsafe_dynamic_tools: [{ name: "ask_user" }] };
    const id = await start(u, `/tool ask_user {"q":"${nonce()}"}`, tools);
    const waiting = await until(u, id, "requires_action");
    const deadline = Date.parse(waiting.requires_action_deadline_at!);
    await until(u, id, "waiting", 60_000);
    const msgs = await messagesOf(u, id);
    const parts = msgs.flatMap((m) => m.content);
    const call = parts.find((p) => p.type === "tool-call");
    const resultRow = msgs.find((m) => m.content.some((p) => p.type === "tool-result"));
    expect(call).toMatchObject({ tool_name: "ask_user" });
    // Closed by the runner, not run: the spec's cancellation result, once, at the deadline.
    const results = parts.filter((p) => p.type === "tool-result");
    expect(results).toEqual([
      expect.objectContaining({
        tool_call_id: call!.tool_call_id,
        tool_name: "ask_user",
        is_error: true,
        result: { error: "tool call cancelled: no tool result arrived before the deadline" },
      }),
    ]);
    expect(Date.parse(resultRow!.created_at)).toBeGreaterThanOrEqual(deadline);
    expect(textOf(msgs.at(-1)!)).toContain("tool result received");
  });

  it("with busy_behavior interrupt stops the turn and runs the new message next", async () => {
    const u = await userWithModel();
    const words = Array.from({ length: 60 }, (_, i) => `x${i}`).join(" ");
    const { id, open } = await startHeld(u, words);
    await expectJson(
      await api(`/chats/${id}/messages`, {
        token: u.token,
        body: { content: [{ type: "text", text: "stop and do this" }], busy_behavior: "interrupt" },
      }),
      200,
    );
    await until(u, id, "waiting");
    await open();
    const msgs = await messagesOf(u, id);
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(textOf(msgs[1]!).trim()).toBe("x0");
    expect(textOf(msgs[3]!)).toBe("stop and do this");
  });

  it("restarts on the new history when a message is edited mid-generation", async () => {
    const u = await userWithModel();
    const words = Array.from({ length: 60 }, (_, i) => `y${i}`).join(" ");
    const { id, open } = await startHeld(u, words);
    const first = (await messagesOf(u, id))[0]!;
    await expectJson(
      await api(`/chats/${id}/messages/${first.id}`, {
        method: "PATCH",
        token: u.token,
        body: { content: [{ type: "text", text: `edited ${nonce()}` }] },
      }),
      200,
    );
    await until(u, id, "waiting");
    await open();
    const msgs = await messagesOf(u, id);
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(msgs[0]!)).toMatch(/^edited /);
    expect(textOf(msgs[1]!)).toBe(textOf(msgs[0]!));
  });
});
