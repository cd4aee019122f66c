/**
 * The spec's HTTP endpoints section, over real HTTP against wrangler dev: each endpoint driven from
 * every execution state it may meet, landing where the spec's lists say; every other state answers
 * 409 and writes nothing. Chats are put into their starting state through real transitions
 * (test/db/fixtures.ts), owned by a user whose token the requests carry.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ExecutionState } from "../../src/chatstate/index";
import { type Env, type FixtureChat, makeChat, makeEnv, snapshotRows, stateOf } from "../db/fixtures";
import { ownerToken } from "./support/owner-token";

type Start = ExecutionState | "Invalid";
/** A landing state, a 409 code, or "unchanged": answered 200 and nothing written (no transition ran). */
type Expect = ExecutionState | "transition_not_allowed" | "invalid_state" | "unchanged";

interface Call {
  method: string;
  path: (f: FixtureChat) => string;
  body?: (f: FixtureChat) => unknown;
}

const text = (t: string) => [{ type: "text", text: t }];

/** A queued-message id no chat has (ids are integers below 2^53): the refusal must name the state, not the id. */
const NO_SUCH_QUEUED = Number.MAX_SAFE_INTEGER;

const ENDPOINTS: Record<string, Call> = {
  "send(queue)": {
    method: "POST",
    path: (f) => `/chats/${f.chatId}/messages`,
    body: () => ({ content: text("next"), busy_behavior: "queue" }),
  },
  "send(interrupt)": {
    method: "POST",
    path: (f) => `/chats/${f.chatId}/messages`,
    body: () => ({ content: text("now"), busy_behavior: "interrupt" }),
  },
  edit: { method: "PATCH", path: (f) => `/chats/${f.chatId}/messages/${f.firstUserMessageId}`, body: () => ({ content: text("edited") }) },
  "delete queued": { method: "DELETE", path: (f) => `/chats/${f.chatId}/queue/${f.queue[0] ?? NO_SUCH_QUEUED}` },
  "promote last queued": { method: "POST", path: (f) => `/chats/${f.chatId}/queue/${f.queue.at(-1) ?? NO_SUCH_QUEUED}/promote` },
  interrupt: { method: "POST", path: (f) => `/chats/${f.chatId}/interrupt` },
  "tool-results": {
    method: "POST",
    path: (f) => `/chats/${f.chatId}/tool-results`,
    body: (f) => ({ results: [{ tool_call_id: f.pendingCallId ?? "call_none", output: { answer: "yes" } }] }),
  },
  compact: { method: "POST", path: (f) => `/chats/${f.chatId}/compact` },
  clear: { method: "POST", path: (f) => `/chats/${f.chatId}/clear` },
  archive: { method: "PATCH", path: (f) => `/chats/${f.chatId}`, body: () => ({ archived: true }) },
  unarchive: { method: "PATCH", path: (f) => `/chats/${f.chatId}`, body: () => ({ archived: false }) },
  reconcile: { method: "POST", path: (f) => `/chats/${f.chatId}/reconcile-invalid` },
};

const STATES: Start[] = ["W", "E0", "E1", "R0", "R1", "I0", "I1", "A0", "A1", "XW", "XE0", "XE1", "Invalid"];
const NO = "transition_not_allowed" as const;

/**
 * The spec's lists (section "HTTP endpoints"), for an owned chat where ownership matters. Missing
 * states are rejected with 409. "If the request does not change archived, this endpoint doesn't
 * emit any state transitions": PATCH with the marker it already has is answered and writes nothing.
 */
const LANDS: Record<string, Partial<Record<Start, Expect>>> = {
  "send(queue)": { W: "R0", E0: "R0", E1: "R1", R0: "R1", R1: "R1", I0: "I1", I1: "I1", A0: "A1", A1: "A1" },
  "send(interrupt)": { W: "R0", E0: "R0", E1: "R1", R0: "I1", R1: "I1", I0: "I1", I1: "I1", A0: "R1", A1: "R1" },
  edit: { W: "R0", E0: "R0", E1: "R0", R0: "R0", R1: "R0", I0: "R0", I1: "R0", A0: "R0", A1: "R0" },
  "delete queued": { E1: "E0", R1: "R0", I1: "I0", A1: "A0" },
  "promote last queued": { E1: "R0", R1: "I1", I1: "I1", A1: "R0" },
  interrupt: { R0: "I0", R1: "I1", A0: "R0", A1: "R1" },
  "tool-results": { A0: "R0", A1: "R1" },
  compact: { W: "R0", E0: "R0", E1: "R1" },
  clear: { W: "W", E0: "W" },
  archive: { W: "XW", E0: "XE0", E1: "XE1", XW: "unchanged", XE0: "unchanged", XE1: "unchanged", Invalid: "unchanged" },
  unarchive: {
    XW: "W",
    XE0: "E0",
    XE1: "E1",
    ...Object.fromEntries(["W", "E0", "E1", "R0", "R1", "I0", "I1", "A0", "A1"].map((s) => [s, "unchanged"])),
  },
  reconcile: { Invalid: "E0" },
};

/** Where the spec says an unowned chat lands differently: FinishInterruption runs in the same transaction. */
const UNOWNED: { endpoint: string; from: Start; queued?: number; lands: Expect }[] = [
  { endpoint: "interrupt", from: "R0", lands: "W" },
  { endpoint: "interrupt", from: "R1", lands: "R0" },
  { endpoint: "interrupt", from: "R1", queued: 2, lands: "R1" },
  { endpoint: "interrupt", from: "I0", lands: "W" },
  { endpoint: "interrupt", from: "I1", lands: "R0" },
  { endpoint: "send(interrupt)", from: "R0", lands: "R0" },
  { endpoint: "send(interrupt)", from: "R1", lands: "R1" },
  { endpoint: "send(interrupt)", from: "I1", lands: "R1" },
  // Queue outcomes with more than one queued message.
  { endpoint: "delete queued", from: "E1", queued: 2, lands: "E1" },
  { endpoint: "promote last queued", from: "E1", queued: 2, lands: "R1" },
];

let env: Env;
let token: string;
const base = () => `${inject("baseUrl")}/api/v2`;

beforeAll(async () => {
  env = await makeEnv({}, 16);
  token = await ownerToken(env, "endpoint-table");
});
afterAll(() => env.pool.end());

async function call(endpoint: string, f: FixtureChat): Promise<{ status: number; body: { code?: string; detail?: string } }> {
  const c = ENDPOINTS[endpoint]!;
  const res = await fetch(base() + c.path(f), {
    method: c.method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(c.body ? { body: JSON.stringify(c.body(f)) } : {}),
  });
  const raw = await res.text();
  return { status: res.status, body: raw ? JSON.parse(raw) : {} };
}

async function check(endpoint: string, from: Start, expected: Expect, spec: { owned?: boolean; queued?: number }): Promise<void> {
  const f = await makeChat(env, from, { owned: spec.owned ?? true, queued: spec.queued ?? 1, invalidQueued: 0 });
  const before = await snapshotRows(env.pool, f.chatId);
  const res = await call(endpoint, f);
  if (expected === NO || expected === "invalid_state") {
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.code).toBe(expected);
    expect(await snapshotRows(env.pool, f.chatId)).toBe(before);
    return;
  }
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  if (expected === "unchanged") expect(await snapshotRows(env.pool, f.chatId)).toBe(before);
  else expect(await stateOf(env.pool, f.chatId)).toBe(expected);
}

describe("each endpoint from each execution state (owned chats)", () => {
  for (const [endpoint, lands] of Object.entries(LANDS)) {
    describe.concurrent(endpoint, () => {
      for (const from of STATES) {
        const expected: Expect = lands[from] ?? (from === "Invalid" ? "invalid_state" : NO);
        it(`${from} -> ${expected}`, () => check(endpoint, from, expected, {}));
      }
    });
  }
});

describe.concurrent("unowned chats finish the interruption in the same transaction", () => {
  for (const u of UNOWNED) {
    it(`${u.endpoint}: ${u.from}${u.queued ? ` (${u.queued} queued)` : ""} unowned -> ${u.lands}`, () =>
      check(u.endpoint, u.from, u.lands, { owned: false, ...(u.queued ? { queued: u.queued } : {}) }));
  }
  it("an owned chat that is interrupting rejects another interrupt", async () => {
    await check("interrupt", "I0", NO, { owned: true });
    await check("interrupt", "I1", NO, { owned: true });
  });
});

describe("the 409 names the transition and the state", () => {
  it("SendMessage on an archived chat", async () => {
    const f = await makeChat(env, "XW", {});
    const res = await call("send(queue)", f);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "transition_not_allowed", detail: "SendMessage is not allowed from XW" });
  });
});
