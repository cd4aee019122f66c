/**
 * The chat list watch's classification and feed (src/watch/), pure: which kind each change is
 * sent as, a change seen twice (notification and poll) sent once, version-only changes not sent,
 * a vanished chat sent as deleted and gone, reads queued behind one in flight merged, and the poll's
 * cursor stepping back by its overlap; a chat that newly waits on its client sent as
 * action_required with its pending calls, which are read only then.
 */
import { describe, expect, it } from "vitest";
import type { ChatWire } from "../../../src/wire/chat-wire";
import { listedKey, watchEventKinds } from "../../../src/watch/watch-events";
import { type ChangedChats, WATCH_POLL_OVERLAP_MS, WatchFeed } from "../../../src/watch/watch-feed";
import type { ChatWatchEvent } from "../../../src/watch/watch-events";
import type { PendingToolCall } from "../../../src/wire/stream-events";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

function chat(over: Partial<ChatWire> = {}): ChatWire {
  return {
    id: "c1",
    organization_id: "o",
    owner_id: "u",
    parent_chat_id: null,
    root_chat_id: null,
    title: "New Chat",
    title_source: "fallback",
    title_updated_at: new Date(T0).toISOString(),
    summary: null,
    last_turn_summary: null,
    summary_updated_at: null,
    status: "waiting",
    archived: false,
    last_error: null,
    labels: {},
    pin_order: 0,
    last_model_config_id: null,
    last_reasoning_effort: null,
    project_id: null,
    mcp_server_ids: [],
    plan_mode: "",
    has_unread: false,
    client_type: "api",
    shared: false,
    children: [],
    snapshot_version: 1,
    history_version: 0,
    queue_version: 0,
    retry_state_version: 0,
    generation_attempt: 0,
    retry_state: null,
    requires_action_deadline_at: null,
    worker_id: null,
    created_at: new Date(T0).toISOString(),
    updated_at: new Date(T0).toISOString(),
    ...over,
  };
}

describe("watchEventKinds", () => {
  it("names each change with Coder's kinds", () => {
    const before = chat();
    expect(watchEventKinds(undefined, before, T0)).toEqual(["created"]);
    expect(watchEventKinds(undefined, before, T0 + 3_600_000)).toEqual(["status_change"]);
    expect(watchEventKinds(undefined, chat({ archived: true }), T0)).toEqual(["deleted"]);
    expect(watchEventKinds(before, chat({ status: "running", snapshot_version: 2 }), T0)).toEqual(["status_change"]);
    expect(watchEventKinds(before, chat({ title: "T", title_source: "generated" }), T0)).toEqual(["title_change"]);
    expect(watchEventKinds(before, chat({ summary: "s", last_turn_summary: "l" }), T0)).toEqual(["summary_change"]);
    expect(watchEventKinds(before, chat({ plan_mode: "plan" }), T0)).toEqual(["status_change"]);
    expect(watchEventKinds(before, chat({ archived: true }), T0)).toEqual(["deleted"]);
    expect(watchEventKinds(chat({ archived: true }), before, T0)).toEqual(["created"]);
    expect(watchEventKinds(before, chat({ status: "error", title: "T" }), T0)).toEqual(["status_change", "title_change"]);
  });

  it("sends a chat that newly waits on its client as action_required, instead of status_change", () => {
    const running = chat({ status: "running", history_version: 2 });
    const waiting = chat({ status: "requires_action", history_version: 3 });
    expect(watchEventKinds(running, waiting, T0)).toEqual(["action_required"]);
    expect(watchEventKinds(running, { ...waiting, title: "T", title_source: "generated" }, T0)).toEqual([
      "action_required",
      "title_change",
    ]);
    // Another round of calls (its history moved) though the listed chat is unchanged; the same round is nothing.
    expect(watchEventKinds(waiting, { ...waiting, history_version: 5 }, T0)).toEqual(["action_required"]);
    expect(watchEventKinds(waiting, { ...waiting, snapshot_version: 9 }, T0)).toEqual([]);
    // First heard of: a new chat is created then waits; an older one just waits.
    expect(watchEventKinds(undefined, waiting, T0)).toEqual(["created", "action_required"]);
    expect(watchEventKinds(undefined, waiting, T0 + 3_600_000)).toEqual(["action_required"]);
    // Leaving requires_action is a status change.
    expect(watchEventKinds(waiting, chat({ status: "running", history_version: 4 }), T0)).toEqual(["status_change"]);
  });

  it("sends nothing for a change no list shows (versions, the worker, updated_at)", () => {
    const moved = chat({ snapshot_version: 9, history_version: 4, worker_id: "w", updated_at: new Date(T0 + 5).toISOString() });
    expect(watchEventKinds(chat(), moved, T0)).toEqual([]);
    expect(listedKey(moved)).toBe(listedKey(chat()));
  });
});

const CALL = { tool_call_id: "call_1", tool_name: "client_lookup", args: '{"q":"x"}' };

function feedWith(rows: Map<string, ChatWire>, pendingCalls: (id: string) => Promise<PendingToolCall[]> = async () => [CALL]) {
  const sent: ChatWatchEvent[] = [];
  const callReads: string[] = [];
  const reads: string[][] = [];
  const sinces: Date[] = [];
  let now = T0 + 1_000;
  const feed = new WatchFeed({
    read: async (ids) => {
      reads.push([...ids]);
      return ids.flatMap((id) => (rows.has(id) ? [rows.get(id)!] : []));
    },
    readChanged: async (since): Promise<ChangedChats> => {
      sinces.push(since);
      return { chats: [...rows.values()], readAt: new Date(now), lastChangedAt: null };
    },
    pendingToolCalls: (id) => {
      callReads.push(id);
      return pendingCalls(id);
    },
    present: async (ids) => new Set(ids.filter((id) => rows.has(id))),
    send: (e) => sent.push(e),
    watchingSince: () => T0,
    now: () => now,
  });
  return { feed, sent, reads, callReads, sinces, tick: (ms: number) => (now += ms) };
}

describe("WatchFeed", () => {
  it("sends a change once though both a notification and the poll see it, and a vanished chat as deleted and gone", async () => {
    const rows = new Map([["c1", chat()]]);
    const { feed, sent } = feedWith(rows);
    await feed.changed("c1");
    await feed.poll();
    expect(sent.map((e) => e.kind)).toEqual(["created"]);
    rows.set("c1", chat({ title: "Renamed", title_source: "user" }));
    await feed.poll();
    await feed.changed("c1");
    expect(sent.map((e) => e.kind)).toEqual(["created", "title_change"]);
    rows.delete("c1");
    await feed.poll();
    expect(sent.map((e) => e.kind)).toEqual(["created", "title_change", "deleted"]);
    expect(sent.at(-1)).toMatchObject({ gone: true, chat: { title: "Renamed" } });
    expect(sent[1]).not.toHaveProperty("gone");
  });

  it("sends action_required with the pending calls, read only for it, and once though the poll sees it too", async () => {
    const rows = new Map([["c1", chat({ status: "running" })]]);
    const { feed, sent, callReads } = feedWith(rows);
    await feed.changed("c1");
    rows.set("c1", chat({ status: "requires_action", history_version: 2 }));
    await Promise.all([feed.changed("c1"), feed.poll()]);
    await feed.poll();
    expect(sent.map((e) => e.kind)).toEqual(["created", "action_required"]);
    expect(sent[1]?.tool_calls).toEqual([CALL]);
    expect(sent[0]).not.toHaveProperty("tool_calls");
    rows.set("c1", chat({ status: "running", history_version: 3 }));
    await feed.changed("c1");
    expect(sent.map((e) => e.kind)).toEqual(["created", "action_required", "status_change"]);
    expect(callReads.length).toBeGreaterThanOrEqual(1);
    expect(callReads.every((id) => id === "c1")).toBe(true);
    expect(callReads.length).toBeLessThanOrEqual(2);
  });

  it("leaves a chat whose pending calls could not be read for the poll to send again", async () => {
    const rows = new Map([["c1", chat({ status: "requires_action", history_version: 2 })]]);
    let fail = true;
    const { feed, sent } = feedWith(rows, async () => {
      if (fail) throw new Error("db down");
      return [CALL];
    });
    await feed.changed("c1");
    expect(sent).toEqual([]);
    fail = false;
    await feed.poll();
    expect(sent.map((e) => e.kind)).toEqual(["created", "action_required"]);
    expect(sent[1]?.tool_calls).toEqual([CALL]);
  });

  it("merges notifications that arrive while a read is in flight into one read", async () => {
    const rows = new Map([
      ["a", chat({ id: "a" })],
      ["b", chat({ id: "b" })],
      ["c", chat({ id: "c" })],
    ]);
    const { feed, reads, sent } = feedWith(rows);
    await Promise.all([feed.changed("a"), feed.changed("b"), feed.changed("c")]);
    expect(reads.length).toBeLessThanOrEqual(2);
    expect(sent.map((e) => e.chat.id).sort()).toEqual(["a", "b", "c"]);
  });

  it("reads each poll from its previous read's time less the overlap", async () => {
    const { feed, sinces, tick } = feedWith(new Map());
    await feed.poll();
    tick(20_000);
    await feed.poll();
    expect(sinces[1]?.getTime()).toBe(T0 + 1_000 - WATCH_POLL_OVERLAP_MS);
  });
});
