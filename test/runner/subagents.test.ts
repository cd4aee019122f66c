/**
 * Subagents end to end in workerd: the fake model calls the subagent tools (`/tool`, `/parallel`),
 * the parent's object creates each child through the child's own object, the child runs its
 * spawn prompt (itself a fake-model directive) in the subagent pool, and wait_agent sleeps until
 * the child's object reports back.
 */
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { acquireChat } from "../../src/chat-worker/leases/admission";
import { NO_SHARES } from "../../src/chat-worker/leases/pools";
import { ChatStore } from "../../src/chats/store";
import { createPool } from "../../src/db/client";
import { createModelConfig, updateModelConfig } from "../../src/model-configs/configs";
import { createProvider } from "../../src/model-configs/providers";
import { setModelOverride } from "../../src/model-configs/model-overrides";
import { api, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { inject } from "vitest";
import type { Part, Message, Chat } from "./support/wire";
import { testKeys } from "../support/test-keys";

interface ToolResult {
  agent_id: string;
  status: string;
  done?: boolean;
  timed_out?: boolean;
  answer?: string;
  interrupted?: boolean;
  queued?: boolean;
  model_source?: string;
  error?: string;
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

const chatOf = async (u: TestUser, id: string) => expectJson<Chat>(await api(`/chats/${id}`, { token: u.token }), 200);
const messagesOf = async (u: TestUser, id: string) =>
  (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: u.token }), 200)).messages;
const childrenOf = async (u: TestUser, id: string) => expectJson<Chat[]>(await api(`/chats?parent_chat_id=${id}`, { token: u.token }), 200);

async function untilStatus(u: TestUser, id: string, status: string, timeout = 30_000): Promise<Chat> {
  await expect.poll(async () => (await chatOf(u, id)).status, { timeout, interval: 100 }).toBe(status);
  return chatOf(u, id);
}

async function start(u: TestUser, text: string): Promise<string> {
  return (await expectJson<{ id: string }>(await api("/chats", { token: u.token, body: { content: [{ type: "text", text }] } }), 201)).id;
}

/** Sends a message to a waiting chat and waits for the turn to end; the turn's new messages. */
async function turn(u: TestUser, id: string, text: string): Promise<Message[]> {
  const before = (await messagesOf(u, id)).length;
  await expectJson(await api(`/chats/${id}/messages`, { token: u.token, body: { content: [{ type: "text", text }] } }), 200);
  await untilStatus(u, id, "waiting", 45_000);
  return (await messagesOf(u, id)).slice(before);
}

const toolResults = (messages: Message[]) => messages.flatMap((m) => m.content).filter((p) => p.type === "tool-result");
const lastResult = (messages: Message[]) => toolResults(messages).at(-1) as Part & { result: ToolResult };
const textOf = (m: Message | undefined) =>
  (m?.content ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
const call = (name: string, args: unknown) => `/tool ${name} ${JSON.stringify(args)}`;

/** A root chat whose first turn spawned one child; the child's id. */
async function spawned(u: TestUser, args: Record<string, unknown>): Promise<{ parent: string; child: string; result: ToolResult }> {
  const parent = await start(u, call("spawn_agent", args));
  await untilStatus(u, parent, "waiting");
  const result = lastResult(await messagesOf(u, parent));
  expect(result.is_error, JSON.stringify(result.result)).toBe(false);
  return { parent, child: result.result.agent_id, result: result.result };
}

describe("subagents", () => {
  it("spawn: the child runs its prompt in its own chat; wait_agent returns its answer; the parent continues", async () => {
    const u = await userWithModel();
    const { parent, child, result } = await spawned(u, { type: "explore", prompt: "/slow 1000 the child found four facts" });
    expect(result).toMatchObject({ status: "running", model_source: "parent" });

    const children = await childrenOf(u, parent);
    expect(children.map((c) => c.id)).toEqual([child]);
    expect(children[0]).toMatchObject({ parent_chat_id: parent, root_chat_id: parent, labels: { subagent_type: "explore" } });
    // Only the parent's children: the parent itself is not listed; another user sees none of them.
    expect(await childrenOf(u, child)).toEqual([]);
    expect(await childrenOf(await userWithModel(), parent)).toEqual([]);
    expect((await api("/chats?parent_chat_id=nope", { token: u.token })).status).toBe(400);
    // Coder's Chat nests them too: the parent's children are whole chats, the child's are none.
    const nested = await chatOf(u, parent);
    expect(nested.children?.map((c) => c.id)).toEqual([child]);
    expect(nested.children?.[0]).toMatchObject({ parent_chat_id: parent, children: [] });
    expect(await chatOf(u, child)).toMatchObject({ children: [] });

    // The child is still streaming when the wait starts: the wait ends on its object's report, long before the timeout.
    expect((await chatOf(u, child)).status).toBe("running");
    const waitStarted = Date.now();
    const waited = await turn(u, parent, call("wait_agent", { agent_id: child, timeout_seconds: 60 }));
    expect(Date.now() - waitStarted).toBeLessThan(20_000);
    const r = lastResult(waited);
    expect(r.is_error).toBe(false);
    expect(r.result).toMatchObject({
      agent_id: child,
      status: "waiting",
      done: true,
      timed_out: false,
      answer: "the child found four facts",
    });
    // The parent's turn went on with the answer in hand.
    expect(textOf(waited.at(-1))).toContain("the child found four facts");

    const childMessages = await messagesOf(u, child);
    expect(childMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(childMessages[0])).toBe("/slow 1000 the child found four facts");
  });

  it("wait_agent times out on a child that is still working, and can wait again", async () => {
    const u = await userWithModel();
    const { parent, child } = await spawned(u, { prompt: "/hang" });
    const started = Date.now();
    const r = lastResult(await turn(u, parent, call("wait_agent", { agent_id: child, timeout_seconds: 1.5 })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(r.result).toMatchObject({ agent_id: child, status: "running", done: false, timed_out: true });
    expect(r.result.answer).toBeUndefined();

    // interrupt_agent stops it; waiting afterwards returns at once.
    const stopped = lastResult(await turn(u, parent, call("interrupt_agent", { agent_id: child })));
    expect(stopped.result).toMatchObject({ agent_id: child, interrupted: true });
    const after = lastResult(await turn(u, parent, call("wait_agent", { agent_id: child, timeout_seconds: 30 })));
    expect(after.result).toMatchObject({ status: "waiting", done: true });
    // close_agent, the deprecated alias, dispatches to interrupt_agent (nothing left to stop here).
    const closed = lastResult(await turn(u, parent, call("close_agent", { agent_id: child })));
    expect(closed.is_error).toBe(false);
    expect(closed.result).toMatchObject({ agent_id: child, interrupted: false, status: "waiting" });
  });

  it("interrupting the parent mid-wait ends the wait at once; the child keeps working", async () => {
    const u = await userWithModel();
    const { parent, child } = await spawned(u, { prompt: "/hang" });
    await expectJson(
      await api(`/chats/${parent}/messages`, {
        token: u.token,
        body: { content: [{ type: "text", text: call("wait_agent", { agent_id: child, timeout_seconds: 600 }) }] },
      }),
      200,
    );
    // The wait_agent call is committed: the parent is blocked in it.
    await expect
      .poll(async () => (await messagesOf(u, parent)).at(-1)?.content.some((p) => p.type === "tool-call" && p.tool_name === "wait_agent"), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(true);
    const stopped = Date.now();
    await expectJson(await api(`/chats/${parent}/interrupt`, { method: "POST", token: u.token }), 200);
    await untilStatus(u, parent, "waiting", 10_000);
    expect(Date.now() - stopped).toBeLessThan(10_000);
    expect((await chatOf(u, child)).status).toBe("running");
    await expectJson(await api(`/chats/${child}/interrupt`, { method: "POST", token: u.token }), 200);
    await untilStatus(u, child, "waiting");
  });

  it("message_agent queues a follow-up, or interrupts the child's current work with interrupt: true", async () => {
    const u = await userWithModel();
    const { parent, child } = await spawned(u, { prompt: "/hang" });
    await untilStatus(u, child, "running");
    const interrupted = lastResult(
      await turn(u, parent, call("message_agent", { agent_id: child, message: "/slow 200 second answer", interrupt: true })),
    );
    expect(interrupted.is_error).toBe(false);
    const w = lastResult(await turn(u, parent, call("wait_agent", { agent_id: child, timeout_seconds: 60 })));
    expect(w.result).toMatchObject({ status: "waiting", done: true, answer: "second answer" });

    // A queued follow-up on a waiting child starts its next turn.
    const queued = lastResult(await turn(u, parent, call("message_agent", { agent_id: child, message: "third answer" })));
    expect(queued.result).toMatchObject({ agent_id: child, queued: false });
    const w2 = lastResult(await turn(u, parent, call("wait_agent", { agent_id: child, timeout_seconds: 60 })));
    expect(w2.result).toMatchObject({ done: true, answer: "third answer" });
    const roles = (await messagesOf(u, child)).map((m) => m.role);
    expect(roles.filter((r) => r === "user")).toHaveLength(3);

    // list_agents shows it; another chat's id is not this parent's subagent.
    const listed = lastResult(await turn(u, parent, call("list_agents", {})));
    expect(listed.result).toMatchObject({ agents: [expect.objectContaining({ agent_id: child, type: "general", status: "waiting" })] });
    const foreign = lastResult(await turn(u, parent, call("wait_agent", { agent_id: parent })));
    expect(foreign.is_error).toBe(true);
  });

  it("invalid spawn arguments are a tool error and create no child", async () => {
    const u = await userWithModel();
    const other = await userWithModel();
    const foreignConfig = await withDb(async (db) => {
      const [row] = await db.query.chatModelConfigs.findMany({ where: (c, { eq }) => eq(c.organizationId, other.organizationId) });
      return row!.id;
    });
    const disabled = await withDb(async (db) => {
      const provider = await createProvider(
        db,
        {
          type: "openai-compatible",
          name: `fake-off-${crypto.randomUUID().slice(0, 8)}`,
          baseUrl: `${inject("fakeModelUrl")}/v1`,
          apiKey: "x",
          enabled: true,
        },
        testKeys,
      );
      const config = await createModelConfig(db, u.organizationId, { providerId: provider.id, model: "fake-off" }, new Date());
      await updateModelConfig(db, u.organizationId, config.id, { enabled: false }, new Date());
      return config.id;
    });
    const bad = [
      { prompt: "x", model_config_id: crypto.randomUUID() },
      { prompt: "x", model_config_id: foreignConfig },
      { prompt: "x", model_config_id: disabled },
      { prompt: "x", reasoning_effort: "extreme" },
      { prompt: "x", type: "computer_use" },
      { prompt: "" },
    ];
    const parent = await start(u, `/parallel ${JSON.stringify(bad.map((args) => ({ name: "spawn_agent", args })))}`);
    await untilStatus(u, parent, "waiting");
    const results = toolResults(await messagesOf(u, parent));
    expect(results).toHaveLength(bad.length);
    for (const r of results) expect(r.is_error, JSON.stringify(r.result)).toBe(true);
    expect(JSON.stringify(results[0]!.result)).toContain("model_config_id");
    expect(JSON.stringify(results[3]!.result)).toContain("reasoning_effort");
    expect(await childrenOf(u, parent)).toEqual([]);
  });

  it("an explicit model and effort: the child's model and its first message's effort", async () => {
    const u = await userWithModel();
    const second = await withDb(async (db) => {
      const [existing] = await db.query.chatModelConfigs.findMany({ where: (c, { eq }) => eq(c.organizationId, u.organizationId) });
      const config = await createModelConfig(
        db,
        u.organizationId,
        { providerId: existing!.providerId, model: "fake-two", options: { reasoning_effort: { default: "low", max: "high" } } },
        new Date(),
      );
      return config.id;
    });
    const { child, result } = await spawned(u, { prompt: "hello", model_config_id: second, reasoning_effort: "high" });
    expect(result).toMatchObject({ model_source: "explicit", model_config_id: second, reasoning_effort: "high" });
    const row = await chatOf(u, child);
    expect(row).toMatchObject({ last_model_config_id: second, last_reasoning_effort: "high" });
    const first = (await messagesOf(u, child))[0]!;
    expect(first.reasoning_effort).toBe("high");

    // list_subagent_models shows what may be passed, with the effort range; a disabled config is left out.
    const parent2 = await start(u, call("list_subagent_models", {}));
    await untilStatus(u, parent2, "waiting");
    const listed = lastResult(await messagesOf(u, parent2)).result as unknown as {
      models: { model_config_id: string; reasoning_effort?: unknown }[];
    };
    expect(listed.models).toContainEqual(
      expect.objectContaining({ model_config_id: second, reasoning_effort: { default: "low", max: "high" } }),
    );
    await withDb((db) => updateModelConfig(db, u.organizationId, second, { enabled: false }, new Date()));
    const parent3 = await start(u, call("list_subagent_models", {}));
    await untilStatus(u, parent3, "waiting");
    const after = lastResult(await messagesOf(u, parent3)).result as unknown as { models: { model_config_id: string }[] };
    expect(after.models.map((m) => m.model_config_id)).not.toContain(second);
    expect(after.models).toHaveLength(1);
  });

  it("without explicit arguments: the personal override, then the organization's, each falling through softly", async () => {
    const u = await userWithModel();
    const [orgModel, personalModel] = await withDb(async (db) => {
      const [existing] = await db.query.chatModelConfigs.findMany({ where: (c, { eq }) => eq(c.organizationId, u.organizationId) });
      const make = (model: string) =>
        createModelConfig(db, u.organizationId, { providerId: existing!.providerId, model }, new Date()).then((c) => c.id);
      return [await make("fake-org"), await make("fake-personal")];
    });
    const mine = `/users/me/chats/model-overrides/explore?organization=${u.organizationId}`;
    const put = async (path: string, body: unknown) => expectJson(await api(path, { method: "PUT", token: u.token, body }), 200);
    // The organization's row, as its admin would set it (the caller is a plain member).
    await withDb((db) => setModelOverride(db, u.organizationId, "explore", orgModel));

    await put(mine, { mode: "deployment_default" });
    expect((await spawned(u, { type: "explore", prompt: "a" })).result).toMatchObject({
      model_source: "organization",
      model_config_id: orgModel,
    });

    await put(mine, { mode: "model", model_config_id: personalModel, reasoning_effort: "medium" });
    expect((await spawned(u, { type: "explore", prompt: "b" })).result).toMatchObject({
      model_source: "personal",
      model_config_id: personalModel,
      reasoning_effort: "medium",
    });
    // The general type has no override: the parent's model.
    expect((await spawned(u, { type: "general", prompt: "c" })).result).toMatchObject({ model_source: "parent" });

    // The personal model becomes unusable: softly down to the organization's.
    await withDb((db) => updateModelConfig(db, u.organizationId, personalModel, { enabled: false }, new Date()));
    expect((await spawned(u, { type: "explore", prompt: "d" })).result).toMatchObject({
      model_source: "organization",
      model_config_id: orgModel,
    });

    // chat_default keeps the type default even though the organization has a row.
    await put(mine, { mode: "chat_default" });
    expect((await spawned(u, { type: "explore", prompt: "e" })).result).toMatchObject({ model_source: "parent" });
  });

  it("a parent model that is no longer usable: the child gets the organization's default, the spawn still works", async () => {
    const u = await userWithModel();
    const own = await withDb(async (db) => {
      const [existing] = await db.query.chatModelConfigs.findMany({ where: (c, { eq }) => eq(c.organizationId, u.organizationId) });
      return (await createModelConfig(db, u.organizationId, { providerId: existing!.providerId, model: "fake-own" }, new Date())).id;
    });
    const body = { content: [{ type: "text", text: "hello" }], model_config_id: own };
    const parent = (await expectJson<{ id: string }>(await api("/chats", { token: u.token, body }), 201)).id;
    await untilStatus(u, parent, "waiting");
    await withDb((db) => updateModelConfig(db, u.organizationId, own, { enabled: false }, new Date()));
    const r = lastResult(await turn(u, parent, call("spawn_agent", { prompt: "child on the default" })));
    expect(r.is_error, JSON.stringify(r.result)).toBe(false);
    expect(r.result).toMatchObject({ model_source: "parent", model_config_id: null });
    const w = lastResult(await turn(u, parent, call("wait_agent", { agent_id: r.result.agent_id, timeout_seconds: 60 })));
    expect(w.result).toMatchObject({ done: true, answer: "child on the default" });
  });

  it("archiving the root mid-run stops every descendant, then archives the family; what they produced is kept", async () => {
    const u = await userWithModel();
    const spawns = [0, 1].map((i) => ({ name: "spawn_agent", args: { prompt: "/hang", title: `c${i}` } }));
    const parent = await start(u, `/parallel ${JSON.stringify(spawns)}`);
    await untilStatus(u, parent, "waiting");
    const children = await childrenOf(u, parent);
    expect(children).toHaveLength(2);
    for (const c of children) await untilStatus(u, c.id, "running");
    // The parent is mid-turn too: blocked in wait_agent on the first child.
    const wait = call("wait_agent", { agent_id: children[0]!.id, timeout_seconds: 600 });
    await expectJson(await api(`/chats/${parent}/messages`, { token: u.token, body: { content: [{ type: "text", text: wait }] } }), 200);
    await expect
      .poll(async () => (await messagesOf(u, parent)).at(-1)?.content.some((p) => p.type === "tool-call" && p.tool_name === "wait_agent"), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(true);
    const parentBefore = await messagesOf(u, parent);

    // Without `interrupt` the spec's rule holds: a running family cannot be archived, and nothing changes.
    const plain = await api(`/chats/${parent}`, { method: "PATCH", token: u.token, body: { archived: true } });
    expect(plain.status).toBe(409);
    expect(await plain.json()).toMatchObject({ code: "transition_not_allowed", detail: "SetArchived is not allowed from R0" });
    expect(await messagesOf(u, parent)).toEqual(parentBefore);
    const stop = { archived: true, interrupt: true };
    await expectJson(await api(`/chats/${parent}`, { method: "PATCH", token: u.token, body: stop }), 204);
    expect(await chatOf(u, parent)).toMatchObject({ archived: true, status: "waiting" });
    for (const c of children) expect(await chatOf(u, c.id)).toMatchObject({ archived: true, status: "waiting" });
    // The parent's history keeps everything it had; its pending wait_agent call got its (cancelled) result.
    const parentAfter = await messagesOf(u, parent);
    expect(parentAfter.slice(0, parentBefore.length).map((m) => m.id)).toEqual(parentBefore.map((m) => m.id));
    expect(toolResults(parentAfter.slice(parentBefore.length - 1)).some((p) => p.tool_name === "wait_agent")).toBe(true);
    for (const c of children) expect(textOf((await messagesOf(u, c.id))[0])).toBe("/hang");
    // Nobody owns an archived chat any more.
    for (const id of [parent, ...children.map((c) => c.id)])
      await expect.poll(async () => (await chatOf(u, id)).worker_id, { timeout: 20_000, interval: 200 }).toBeNull();
  });

  it("a running member with queued messages: the archive is refused (409 naming its state) and nothing is interrupted", async () => {
    const u = await userWithModel();
    const { parent, child } = await spawned(u, { prompt: "/hang" });
    await untilStatus(u, child, "running");
    const follow = { content: [{ type: "text", text: "later" }], busy_behavior: "queue" };
    await expectJson(await api(`/chats/${child}/messages`, { token: u.token, body: follow }), 200);

    const stop = { archived: true, interrupt: true };
    const refused = await api(`/chats/${parent}`, { method: "PATCH", token: u.token, body: stop });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: "transition_not_allowed", detail: "SetArchived is not allowed from R1" });
    expect(await chatOf(u, parent)).toMatchObject({ archived: false, status: "waiting" });
    expect(await chatOf(u, child)).toMatchObject({ archived: false, status: "running" });

    // Without the queued message the same request stops the child and archives both.
    const listed = await expectJson<{ queued_messages: { id: number }[] }>(await api(`/chats/${child}/messages`, { token: u.token }), 200);
    const [queued] = listed.queued_messages;
    expect((await api(`/chats/${child}/queue/${queued!.id}`, { method: "DELETE", token: u.token })).status).toBe(204);
    await expectJson(await api(`/chats/${parent}`, { method: "PATCH", token: u.token, body: stop }), 204);
    expect(await chatOf(u, child)).toMatchObject({ archived: true, status: "waiting" });
  });

  it("archiving a running child alone stops it and leaves its parent as it was", async () => {
    const u = await userWithModel();
    const { parent, child } = await spawned(u, { prompt: "/hang" });
    await untilStatus(u, child, "running");
    const stop = { archived: true, interrupt: true };
    await expectJson(await api(`/chats/${child}`, { method: "PATCH", token: u.token, body: stop }), 204);
    expect(await chatOf(u, child)).toMatchObject({ archived: true, status: "waiting" });
    expect((await chatOf(u, parent)).archived).toBe(false);
    // interrupt means nothing without archiving.
    const bad = await api(`/chats/${parent}`, { method: "PATCH", token: u.token, body: { interrupt: true, title: "t" } });
    expect(bad.status).toBe(400);
  });
});

describe("the subagent pool (CHAT_SUBAGENT_CONCURRENCY = 10)", () => {
  it("the 11th child waits for a slot and runs once one is released", async () => {
    const u = await userWithModel();
    const spawns = Array.from({ length: 11 }, (_, i) => ({ name: "spawn_agent", args: { prompt: "/hang", title: `c${i}` } }));
    const parent = await start(u, `/parallel ${JSON.stringify(spawns)}`);
    await untilStatus(u, parent, "waiting");
    const owned = async () => (await childrenOf(u, parent)).filter((c) => c.worker_id !== null);
    await expect.poll(async () => (await owned()).length, { timeout: 20_000, interval: 200 }).toBe(10);
    const children = await childrenOf(u, parent);
    expect(children).toHaveLength(11);
    const waiting = children.filter((c) => c.worker_id === null);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.status).toBe("running");
    // The pool is full: an acquisition of it now, with this project's limits, is refused for
    // capacity and writes nothing (a positive check in place of watching it stay out for a while).
    const pool = createPool({ databaseUrl: env.DATABASE_URL, wsProxy: env.NEON_WS_PROXY, max: 1 });
    try {
      const attempt = await acquireChat(new ChatStore(pool), waiting[0]!.id, {
        workerId: crypto.randomUUID(),
        runnerId: crypto.randomUUID(),
        limits: { root: Number(env.CHAT_ROOT_CONCURRENCY), subagent: Number(env.CHAT_SUBAGENT_CONCURRENCY) },
        shares: NO_SHARES,
        staleThresholdMs: Number(env.CHAT_STALE_THRESHOLD_MS),
      });
      expect(attempt).toEqual({ kind: "refused", reason: "capacity" });
    } finally {
      await pool.end();
    }
    expect((await chatOf(u, waiting[0]!.id)).worker_id).toBeNull();

    // One child stops: its slot goes to the waiting one.
    const first = (await owned())[0]!;
    await expectJson(await api(`/chats/${first.id}/interrupt`, { method: "POST", token: u.token }), 200);
    await expect.poll(async () => (await chatOf(u, waiting[0]!.id)).worker_id, { timeout: 20_000, interval: 200 }).not.toBeNull();

    // Release the pool for whatever runs next.
    for (const c of await childrenOf(u, parent))
      if (c.status === "running") await api(`/chats/${c.id}/interrupt`, { method: "POST", token: u.token });
    await expect.poll(async () => (await owned()).length, { timeout: 20_000, interval: 200 }).toBe(0);
  });
});
