/**
 * Turn spans, stages and metrics (docs/observability.md), exported by each chat's object to the
 * project's OTLP/HTTP receiver (test/support/otlp-receiver-setup.ts) and read back from both the
 * receiver and GET /chats/{chat}/turns. Each case drives a real turn through the fake model.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { STAGE_NAMES } from "../../src/observability/stage-tracing";

/** A span as the receiver answers it (scripts/lib/otlp-receiver.ts ReceivedSpan; a Node module, so not imported here). */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  error: string | null;
}
interface Turn {
  trace_id: string;
  outcome: string;
  duration_ms: number;
  error: string | null;
  stages: { name: string; offset_ms: number; duration_ms: number; attributes: Record<string, unknown> }[];
}
interface Point {
  name: string;
  attributes: Record<string, string>;
  value: number;
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

const receiver = () => inject("otlpReceiverUrl");
const nonce = () => crypto.randomUUID().slice(0, 8);

const status = async (u: TestUser, id: string) =>
  (await expectJson<{ status: string }>(await api(`/chats/${id}`, { token: u.token }), 200)).status;
async function until(u: TestUser, id: string, want: string, timeout = 30_000): Promise<void> {
  await expect.poll(() => status(u, id), { timeout, interval: 100 }).toBe(want);
}
async function start(u: TestUser, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const body = { content: [{ type: "text", text }], ...extra };
  return (await expectJson<{ id: string }>(await api("/chats", { token: u.token, body }), 201)).id;
}
const send = async (u: TestUser, id: string, text: string, busy: "queue" | "interrupt" = "queue") =>
  expectJson(await api(`/chats/${id}/messages`, { token: u.token, body: { content: [{ type: "text", text }], busy_behavior: busy } }), 200);

/** The turn's model call has started (its first generation attempt was recorded). */
async function modelCalled(u: TestUser, id: string): Promise<void> {
  const attempt = async () =>
    (await expectJson<{ generation_attempt: number }>(await api(`/chats/${id}`, { token: u.token }), 200)).generation_attempt;
  await expect.poll(attempt, { timeout: 20_000, message: "waiting for the first model call" }).toBeGreaterThan(0);
}

/** The receiver's spans of one chat's standalone roots (chat_turn, queue_wait, the title). */
async function chatSpans(id: string): Promise<Span[]> {
  return (await (await fetch(`${receiver()}/spans?chat_id=${id}`)).json()) as Span[];
}

/** The chat's turns over the API, once `count` have been emitted. */
async function turnsOf(u: TestUser, id: string, count: number): Promise<Turn[]> {
  let turns: Turn[] = [];
  await expect
    .poll(
      async () => {
        turns = await expectJson<Turn[]>(await api(`/chats/${id}/turns`, { token: u.token }), 200);
        return turns.length;
      },
      { timeout: 20_000, interval: 200, message: `waiting for ${count} emitted turns` },
    )
    .toBe(count);
  return turns.reverse(); // oldest first
}

/** Every span of a turn's trace the receiver got, once its chat_turn arrived. */
async function traceOf(traceId: string): Promise<Span[]> {
  let spans: Span[] = [];
  await expect
    .poll(
      async () => {
        spans = (await (await fetch(`${receiver()}/spans?trace_id=${traceId}`)).json()) as Span[];
        return spans.some((s) => s.name === "chat_turn");
      },
      { timeout: 20_000, interval: 200, message: `waiting for trace ${traceId} at the receiver` },
    )
    .toBe(true);
  return spans;
}

const names = (spans: readonly Span[]) => new Set(spans.map((s) => s.name));
/** Every stage a turn's trace may hold: all but queue_wait, which is a root of its own. */
const ALLOWED = new Set<string>(STAGE_NAMES.filter((name) => name !== "queue_wait"));

function rootOf(spans: readonly Span[]): Span {
  const roots = spans.filter((s) => s.name === "chat_turn");
  expect(roots).toHaveLength(1);
  const root = roots[0]!;
  expect(root.parentSpanId).toBeNull();
  // Every other span of the trace hangs under it.
  for (const s of spans) if (s !== root) expect(s.parentSpanId, s.name).not.toBeNull();
  for (const s of spans) expect(ALLOWED.has(s.name), s.name).toBe(true);
  return root;
}

describe("turn spans", () => {
  it("a plain turn: one completed chat_turn backdated to the prompt, with acquisition, model stages and the commit", async () => {
    const u = await userWithModel();
    const id = await start(u, `hello ${nonce()}`);
    await until(u, id, "waiting");
    const [turn] = await turnsOf(u, id, 1);
    expect(turn).toMatchObject({ outcome: "completed", error: null });
    const spans = await traceOf(turn!.trace_id);
    const root = rootOf(spans);
    expect(root.attributes).toMatchObject({ turn_outcome: "completed", chat_id: id, scope: "turn", chat_kind: "root" });
    expect(root.error).toBeNull();
    // Exactly one turn_outcome; chat_turn carries no model.
    expect(root.attributes.model).toBeUndefined();
    const seen = names(spans);
    for (const stage of ["acquisition", "generation_step", "prepare", "provider_attempt", "stream", "time_to_first_token", "commit"])
      expect(seen.has(stage), `${stage} in ${[...seen]}`).toBe(true);
    // The reply's commit ends the turn (FinishTurn in the same transaction): no second step reads it back.
    expect(spans.filter((s) => s.name === "generation_step").map((s) => s.attributes.generation_action)).toEqual(["call_model"]);
    expect(spans.filter((s) => s.name === "commit")).toHaveLength(1);
    const acquisition = spans.find((s) => s.name === "acquisition")!;
    expect(acquisition.startMs).toBe(root.startMs);
    const stream = spans.find((s) => s.name === "stream")!;
    // The test user's provider row is openai-compatible (the fake model); provider is the wire protocol.
    expect(stream.attributes).toMatchObject({ provider_type: "openai-compatible", provider: "openai-compatible-chat", scope: "turn" });
    expect(typeof stream.attributes.model).toBe("string");
    const ttft = spans.find((s) => s.name === "time_to_first_token")!;
    expect(ttft.parentSpanId).toBe(stream.spanId);
    expect(ttft.endMs).toBeLessThanOrEqual(stream.endMs);
    // The API's timeline is the same turn.
    expect(turn!.stages.map((s) => s.name).sort()).toEqual(
      spans
        .filter((s) => s !== root)
        .map((s) => s.name)
        .sort(),
    );

    // The histogram and the outcome counter saw it.
    await expect
      .poll(async () => {
        const points = (await (await fetch(`${receiver()}/metrics`)).json()) as Point[];
        return [
          "chatd_turn_outcomes_total",
          "chatd_stage_duration_seconds",
          "chatd_ttft_seconds",
          "chatd_model_stage_duration_seconds",
        ].every((name) => points.some((p) => p.name === name));
      })
      .toBe(true);
  });

  it("a retried turn: one turn, a failed provider_attempt and a retry_backoff, then completed", async () => {
    const u = await userWithModel();
    const id = await start(u, `/error 503 1 recovered ${nonce()}`);
    await until(u, id, "waiting");
    const [turn] = await turnsOf(u, id, 1);
    expect(turn!.outcome).toBe("completed");
    const spans = await traceOf(turn!.trace_id);
    rootOf(spans);
    const attempts = spans.filter((s) => s.name === "provider_attempt");
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.some((s) => s.error !== null && s.attributes.http_status === 503)).toBe(true);
    expect(spans.filter((s) => s.name === "retry_backoff")).toHaveLength(1);
  });

  it("an interrupted turn: outcome interrupted, status unset", async () => {
    const u = await userWithModel();
    const id = await start(u, "/hang");
    await modelCalled(u, id);
    await expectJson(await api(`/chats/${id}/interrupt`, { method: "POST", token: u.token }), 200);
    await until(u, id, "waiting");
    const [turn] = await turnsOf(u, id, 1);
    expect(turn).toMatchObject({ outcome: "interrupted", error: null });
    const root = rootOf(await traceOf(turn!.trace_id));
    expect(root.error).toBeNull();
    expect(root.attributes.turn_outcome).toBe("interrupted");
  });

  it("requires_action ends a completed turn; the tool result opens the next one, anchored at the result", async () => {
    const u = await userWithModel();
    const tools = { unsafe_dynamic_tools: [{ name: "ask_user" }] };
    const id = await start(u, `/tool ask_user {"q":"${nonce()}"}`, tools);
    await until(u, id, "requires_action");
    const [first] = await turnsOf(u, id, 1);
    expect(first!.outcome).toBe("completed");
    const messages = (
      await expectJson<{ messages: { content: { type: string; tool_call_id?: string }[] }[] }>(
        await api(`/chats/${id}/messages`, { token: u.token }),
        200,
      )
    ).messages;
    const call = messages.flatMap((m) => m.content).find((p) => p.type === "tool-call")!;
    const submitted = Date.now();
    await expectJson(
      await api(`/chats/${id}/tool-results`, { token: u.token, body: { results: [{ tool_call_id: call.tool_call_id, output: "yes" }] } }),
      204,
    );
    await until(u, id, "waiting");
    const [, second] = await turnsOf(u, id, 2);
    expect(second!.outcome).toBe("completed");
    expect(second!.trace_id).not.toBe(first!.trace_id);
    const root = rootOf(await traceOf(second!.trace_id));
    // Anchored at the result message (committed during the request), not at the first prompt.
    expect(root.startMs).toBeGreaterThanOrEqual(submitted - 1_000);
    expect(second!.stages.some((s) => s.name === "acquisition")).toBe(true);
  });

  it("an edit mid-turn: the edited turn is abandoned, the new prompt's turn completes", async () => {
    const u = await userWithModel();
    const id = await start(u, "/hang");
    await modelCalled(u, id);
    const [prompt] = (await expectJson<{ messages: { id: string }[] }>(await api(`/chats/${id}/messages`, { token: u.token }), 200))
      .messages;
    const edit = { content: [{ type: "text", text: `edited ${nonce()}` }] };
    await expectJson(await api(`/chats/${id}/messages/${prompt!.id}`, { method: "PATCH", token: u.token, body: edit }), 200);
    await until(u, id, "waiting");
    const turns = await turnsOf(u, id, 2);
    expect(turns.map((t) => t.outcome)).toEqual(["abandoned", "completed"]);
    const root = rootOf(await traceOf(turns[0]!.trace_id));
    expect(root.error).toBeNull();
  });

  it("a queued prompt: its queue_wait is recorded when it is promoted, and it runs as its own turn", async () => {
    const u = await userWithModel();
    const id = await start(u, `/slow 300 one two three ${nonce()}`);
    await modelCalled(u, id);
    const queuedAt = Date.now();
    await send(u, id, `next ${nonce()}`);
    await expect
      .poll(async () => (await turnsOf(u, id, 2)).map((t) => t.outcome), { timeout: 20_000, interval: 200 })
      .toEqual(["completed", "completed"]);
    await until(u, id, "waiting");
    let waits: Span[] = [];
    await expect
      .poll(
        async () => {
          waits = (await chatSpans(id)).filter((s) => s.name === "queue_wait");
          return waits.length;
        },
        // The exporter sends after the turn ends: the default second is too short on a loaded machine.
        { timeout: 20_000, interval: 200, message: "waiting for the queue_wait span" },
      )
      .toBe(1);
    expect(waits[0]!.parentSpanId).toBeNull();
    expect(waits[0]!.startMs).toBeGreaterThanOrEqual(queuedAt - 1_000);
    expect(waits[0]!.endMs - waits[0]!.startMs).toBeGreaterThan(100);
  });

  it("an error turn ends in error; a message sent to the errored chat promotes its queue head with a queue_wait", async () => {
    const u = await userWithModel();
    const id = await start(u, `/error 500 ${nonce()}`);
    await modelCalled(u, id);
    const queuedAt = Date.now();
    await send(u, id, `queued while failing ${nonce()}`);
    await until(u, id, "error");
    const [failed] = await turnsOf(u, id, 1);
    expect(failed!.outcome).toBe("error");
    expect(failed!.error).toContain("500");
    const root = rootOf(await traceOf(failed!.trace_id));
    expect(root.error).toContain("500");
    expect(root.attributes.turn_outcome).toBe("error");

    // The send promotes the first queued message at once (the command records its wait) and queues
    // itself; FinishTurn promotes it next (the runner records that wait): two queue_waits.
    await send(u, id, `after the error ${nonce()}`);
    await until(u, id, "waiting");
    let waits: Span[] = [];
    await expect
      .poll(
        async () => {
          waits = (await chatSpans(id)).filter((s) => s.name === "queue_wait");
          return waits.length;
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(1);
    expect(waits[0]!.startMs).toBeGreaterThanOrEqual(queuedAt - 1_000);
    expect(waits[0]!.attributes).toMatchObject({ scope: "turn", chat_kind: "root" });
  });

  it("a local tool call, a manual compaction and the title: tool_call in the turn, compaction with its model, the title a background root", async () => {
    const u = await userWithModel();
    const id = await start(u, `/tool list_agents {}`);
    await until(u, id, "waiting");
    const [first] = await turnsOf(u, id, 1);
    const calls = (await traceOf(first!.trace_id)).filter((s) => s.name === "tool_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.attributes).toMatchObject({ tool_name: "list_agents", scope: "turn" });
    expect(calls[0]!.error).toBeNull();

    // The title call after the first turn: a stream stage of its own trace, scope background.
    let title: Span | undefined;
    await expect
      .poll(
        async () => {
          const spans = await chatSpans(id);
          title = spans.find((s) => s.name === "stream" && s.attributes.purpose === "title");
          return title !== undefined;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    expect(title!.parentSpanId).toBeNull();
    expect(title!.attributes).toMatchObject({ scope: "background", chat_kind: "root" });

    await expectJson(await api(`/chats/${id}/compact`, { method: "POST", token: u.token }), 200);
    await until(u, id, "waiting");
    const [, compacted] = await turnsOf(u, id, 2);
    expect(compacted!.outcome).toBe("completed");
    const stage = compacted!.stages.find((s) => s.name === "compaction");
    expect(stage?.attributes).toMatchObject({ source: "manual", provider_type: "openai-compatible" });
    // Anchored at the compaction request, with its acquisition.
    expect(compacted!.stages.some((s) => s.name === "acquisition")).toBe(true);
  });

  it("another user's chat has no turns to show", async () => {
    const u = await userWithModel();
    const id = await start(u, `hello ${nonce()}`);
    const other = await userWithModel();
    expect((await api(`/chats/${id}/turns`, { token: other.token })).status).toBe(404);
    expect((await api(`/chats/${id}/turns?limit=0`, { token: u.token })).status).toBe(400);
  });
});
