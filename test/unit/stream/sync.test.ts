import { describe, expect, it } from "vitest";
import type { ChatStatus } from "../../../src/chatstate/states";
import type { RetryState } from "../../../src/db/schema/chats";
import type { ChatMessageWire, ChatQueuedMessageWire } from "../../../src/wire/chat-wire";
import { judgePart, type RelayedPart } from "../../../src/stream/part-op";
import type { ChatStreamEvent, ChatStreamEventType, PendingToolCall, StreamErrorPayload } from "../../../src/wire/stream-events";
import { applySnapshot, hintsCallForFetch, type SyncResult } from "../../../src/stream/sync";
import type { SyncChatRow, SyncSnapshot } from "../../../src/stream/sync-snapshot";
import { NULL_CURSORS, type RelayTarget, type StreamCursors, type SyncHints } from "../../../src/stream/sync-state";

const CHAT = "0b6c1f7e-4a39-4f2e-9a52-1c1f3c1e2d10";
const W1 = "7c1e2a4b-0d3f-4e5a-9b6c-8d7e6f5a4b3c";
const W2 = "2f3e4d5c-6b7a-4980-a1b2-c3d4e5f6a7b8";

function cursors(over: Partial<StreamCursors> = {}): StreamCursors {
  return { ...NULL_CURSORS, ...over };
}

/** A loop that has settled on a running chat: history 5, attempt 1 of worker W1, three parts seen. */
const BASE: Readonly<StreamCursors> = Object.freeze(
  cursors({
    snapshotVersion: 10,
    historyVersion: 5,
    queueVersion: 2,
    retryStateVersion: 1,
    status: "running",
    workerId: W1,
    generationAttempt: 1,
    lastPartSeq: 3,
  }),
);

/** A chat row equal to `local` in every synchronized field, one snapshot newer, with `over` applied. */
function rowFrom(local: Readonly<StreamCursors>, over: Partial<SyncChatRow> = {}): SyncChatRow {
  return {
    snapshotVersion: local.snapshotVersion + 1,
    historyVersion: local.historyVersion,
    queueVersion: local.queueVersion,
    retryStateVersion: local.retryStateVersion,
    generationAttempt: local.generationAttempt,
    status: local.status ?? "waiting",
    workerId: local.workerId,
    retryState: null,
    error: null,
    ...over,
  };
}

function snap(chat: SyncChatRow, extra: Partial<Omit<SyncSnapshot, "chat">> = {}): SyncSnapshot {
  return { chat, messages: null, queue: null, pendingToolCalls: null, ...extra };
}

function msg(id: number, revision: number, role: ChatMessageWire["role"] = "assistant"): ChatMessageWire {
  return {
    id,
    chat_id: CHAT,
    role,
    content: [{ type: "text", text: `${id}@${revision}` }],
    revision,
    queued_message_id: null,
    model_config_id: null,
    reasoning_effort: null,
    created_by: null,
    created_at: "2024-01-01T00:00:00.000Z",
    usage: null,
  };
}

function queued(id: number, position: number): ChatQueuedMessageWire {
  return {
    id,
    chat_id: CHAT,
    position,
    content: [{ type: "text", text: `q${id}` }],
    model_config_id: null,
    reasoning_effort: null,
    created_by: W1,
    created_at: "2024-01-01T00:00:00.000Z",
  };
}

const RETRY: RetryState = { attempt: 1, delay_ms: 2000, error: "overloaded" };

const ERROR: StreamErrorPayload = {
  message: "provider failed",
  detail: null,
  kind: "generic",
  reason: "server",
  provider: "anthropic",
  retryable: false,
  status_code: 500,
};

const TOOL_CALLS: PendingToolCall[] = [{ tool_call_id: "call_1", tool_name: "open_file", args: '{"path":"a.ts"}' }];

/** applySnapshot that must not be a no-op. */
function apply(local: Readonly<StreamCursors>, s: SyncSnapshot, known: ReadonlyMap<number, number> = new Map()): SyncResult {
  const result = applySnapshot(CHAT, local, known, s);
  if (result === null) throw new Error("applySnapshot returned null");
  return result;
}

const types = (events: readonly ChatStreamEvent[]): ChatStreamEventType[] => events.map((e) => e.type);

function messageIds(events: readonly ChatStreamEvent[]): string[] {
  return events.flatMap((e) => (e.type === "message" ? [`${e.message.id}@${e.message.revision}`] : []));
}

function ofType<T extends ChatStreamEventType>(events: readonly ChatStreamEvent[], type: T): Extract<ChatStreamEvent, { type: T }>[] {
  return events.filter((e): e is Extract<ChatStreamEvent, { type: T }> => e.type === type);
}

/** A stateful stream loop over the pure operations, as the endpoint drives them. */
class Loop {
  cursors: StreamCursors = cursors();
  known = new Map<number, number>();
  relay: RelayTarget | undefined;
  readonly emitted: ChatStreamEventType[] = [];

  /** Applies a fetched snapshot; returns its events' types ([] for a no-op). */
  sync(s: SyncSnapshot): ChatStreamEventType[] {
    const result = applySnapshot(CHAT, this.cursors, this.known, s);
    if (result === null) return [];
    this.cursors = result.cursors;
    this.known = result.known;
    if (result.relay !== undefined) this.relay = result.relay;
    const t = types(result.events);
    this.emitted.push(...t);
    return t;
  }

  part(p: RelayedPart) {
    const verdict = judgePart(this.cursors, p);
    if (verdict === "accept") {
      this.cursors = { ...this.cursors, lastPartSeq: p.seq };
      this.emitted.push("message_part");
    }
    return verdict;
  }
}

describe("hintsCallForFetch (Sync steps 1-3)", () => {
  it("does not fetch without hints", () => {
    expect(hintsCallForFetch(BASE, {})).toBe(false);
    expect(hintsCallForFetch(NULL_CURSORS, {})).toBe(false);
  });

  it("does not fetch when every hint equals local state", () => {
    const hints: SyncHints = {
      snapshotVersion: BASE.snapshotVersion + 1,
      historyVersion: BASE.historyVersion,
      queueVersion: BASE.queueVersion,
      retryStateVersion: BASE.retryStateVersion,
      status: "running",
      workerId: W1,
      generationAttempt: BASE.generationAttempt,
    };
    expect(hintsCallForFetch(BASE, hints)).toBe(false);
  });

  it("a snapshot_version at or below local is a no-op even when every other hint differs", () => {
    const stale: SyncHints = {
      historyVersion: BASE.historyVersion + 1,
      queueVersion: BASE.queueVersion + 1,
      retryStateVersion: BASE.retryStateVersion + 1,
      status: "error",
      workerId: W2,
      generationAttempt: BASE.generationAttempt + 1,
    };
    expect(hintsCallForFetch(BASE, { ...stale, snapshotVersion: BASE.snapshotVersion })).toBe(false);
    expect(hintsCallForFetch(BASE, { ...stale, snapshotVersion: BASE.snapshotVersion - 1 })).toBe(false);
    expect(hintsCallForFetch(BASE, { ...stale, snapshotVersion: 0 })).toBe(false);
    // The same hints with a newer snapshot_version, or none, do fetch.
    expect(hintsCallForFetch(BASE, { ...stale, snapshotVersion: BASE.snapshotVersion + 1 })).toBe(true);
    expect(hintsCallForFetch(BASE, stale)).toBe(true);
  });

  it("a newer snapshot_version alone is not a reason to fetch (step 2 does not list it)", () => {
    expect(hintsCallForFetch(BASE, { snapshotVersion: BASE.snapshotVersion + 1 })).toBe(false);
  });

  it.each([
    ["historyVersion", "historyVersion"],
    ["queueVersion", "queueVersion"],
    ["retryStateVersion", "retryStateVersion"],
  ] as const)("%s: fetches only when greater than local", (hint, field) => {
    const v = BASE[field];
    expect(hintsCallForFetch(BASE, { [hint]: v + 1 })).toBe(true);
    expect(hintsCallForFetch(BASE, { [hint]: v + 100 })).toBe(true);
    expect(hintsCallForFetch(BASE, { [hint]: v })).toBe(false);
    expect(hintsCallForFetch(BASE, { [hint]: v - 1 })).toBe(false);
    expect(hintsCallForFetch(BASE, { [hint]: 0 })).toBe(false);
    // With a newer snapshot_version the comparison still decides.
    expect(hintsCallForFetch(BASE, { snapshotVersion: BASE.snapshotVersion + 1, [hint]: v + 1 })).toBe(true);
    expect(hintsCallForFetch(BASE, { snapshotVersion: BASE.snapshotVersion + 1, [hint]: v })).toBe(false);
  });

  it("status: fetches when it differs from local, in either direction", () => {
    const others: ChatStatus[] = ["waiting", "interrupting", "requires_action", "error"];
    for (const status of others) expect(hintsCallForFetch(BASE, { status })).toBe(true);
    expect(hintsCallForFetch(BASE, { status: "running" })).toBe(false);
  });

  it("status: any status differs from the unset status of the null state", () => {
    for (const status of ["waiting", "running", "interrupting", "requires_action", "error"] as const) {
      expect(hintsCallForFetch(NULL_CURSORS, { status })).toBe(true);
    }
  });

  it("generation_attempt: fetches when it differs, including a drop back to 0", () => {
    expect(hintsCallForFetch(BASE, { generationAttempt: 2 })).toBe(true);
    expect(hintsCallForFetch(BASE, { generationAttempt: 0 })).toBe(true);
    expect(hintsCallForFetch(BASE, { generationAttempt: 1 })).toBe(false);
  });

  describe("worker_id is tri-state", () => {
    const withWorker = BASE;
    const noWorker = cursors({ ...BASE, workerId: null });

    it("absent: not compared", () => {
      expect(hintsCallForFetch(withWorker, {})).toBe(false);
      expect(hintsCallForFetch(noWorker, {})).toBe(false);
      expect(hintsCallForFetch(withWorker, { workerId: undefined })).toBe(false);
      expect(hintsCallForFetch(noWorker, { workerId: undefined, historyVersion: BASE.historyVersion })).toBe(false);
    });

    it("null: compared against a null local worker", () => {
      expect(hintsCallForFetch(withWorker, { workerId: null })).toBe(true);
      expect(hintsCallForFetch(noWorker, { workerId: null })).toBe(false);
    });

    it("an id: compared against the local worker", () => {
      expect(hintsCallForFetch(withWorker, { workerId: W1 })).toBe(false);
      expect(hintsCallForFetch(withWorker, { workerId: W2 })).toBe(true);
      expect(hintsCallForFetch(noWorker, { workerId: W1 })).toBe(true);
    });
  });

  it("one stale field among equal ones is enough", () => {
    const equal: SyncHints = {
      historyVersion: BASE.historyVersion,
      queueVersion: BASE.queueVersion,
      retryStateVersion: BASE.retryStateVersion,
      status: "running",
      workerId: W1,
      generationAttempt: 1,
    };
    expect(hintsCallForFetch(BASE, { ...equal, queueVersion: BASE.queueVersion + 1 })).toBe(true);
    expect(hintsCallForFetch(BASE, { ...equal, workerId: null })).toBe(true);
    expect(hintsCallForFetch(BASE, { ...equal, generationAttempt: 2 })).toBe(true);
  });
});

describe("applySnapshot", () => {
  describe("no-op on a snapshot that is not newer", () => {
    it("returns null when db snapshot_version equals local", () => {
      const chat = rowFrom(BASE, { snapshotVersion: BASE.snapshotVersion, historyVersion: 9, status: "error", error: ERROR });
      expect(applySnapshot(CHAT, BASE, new Map(), snap(chat, { messages: { refresh: false, rows: [msg(9, 9)] } }))).toBeNull();
    });

    it("returns null when db snapshot_version is below local", () => {
      const chat = rowFrom(BASE, { snapshotVersion: BASE.snapshotVersion - 1, generationAttempt: 2 });
      expect(applySnapshot(CHAT, BASE, new Map(), snap(chat))).toBeNull();
    });

    it("does not treat the null state's snapshot_version 0 as newer than a db row at 0", () => {
      expect(applySnapshot(CHAT, NULL_CURSORS, new Map(), snap(rowFrom(NULL_CURSORS, { snapshotVersion: 0 })))).toBeNull();
    });
  });

  it("a newer snapshot with nothing client-visible changed emits nothing and only saves cursors", () => {
    const r = apply(BASE, snap(rowFrom(BASE)));
    expect(r.events).toEqual([]);
    expect(r.cursors).toEqual({ ...BASE, snapshotVersion: BASE.snapshotVersion + 1 });
  });

  it("does not mutate its inputs", () => {
    const local = cursors({ ...BASE });
    const localCopy = { ...local };
    const known = new Map([[1, 1]]);
    const r = apply(
      local,
      snap(rowFrom(local, { historyVersion: 7, generationAttempt: 0, retryState: RETRY }), {
        messages: { refresh: true, rows: [msg(6, 6)] },
      }),
      known,
    );
    expect(local).toEqual(localCopy);
    expect([...known]).toEqual([[1, 1]]);
    expect(r.known).not.toBe(known);
    expect(r.cursors).not.toBe(local);
  });

  describe("deterministic event order", () => {
    it("history_reset/messages, queue_update, status, error, preview_reset", () => {
      const r = apply(
        BASE,
        snap(rowFrom(BASE, { historyVersion: 8, queueVersion: 3, status: "error", error: ERROR, generationAttempt: 0 }), {
          messages: { refresh: true, rows: [msg(1, 1, "user"), msg(8, 8)] },
          queue: [queued(1, 0)],
        }),
      );
      expect(types(r.events)).toEqual(["history_reset", "message", "message", "queue_update", "status", "error", "preview_reset"]);
    });

    it("messages, queue_update, status, action_required, preview_reset", () => {
      const r = apply(
        BASE,
        snap(rowFrom(BASE, { historyVersion: 6, queueVersion: 3, status: "requires_action", generationAttempt: 0 }), {
          messages: { refresh: false, rows: [msg(6, 6)] },
          queue: [queued(1, 0), queued(2, 1)],
          pendingToolCalls: TOOL_CALLS,
        }),
      );
      expect(types(r.events)).toEqual(["message", "queue_update", "status", "action_required", "preview_reset"]);
    });

    it("messages, queue_update, status, retry, preview_reset", () => {
      const local = cursors({ ...BASE, status: "waiting" });
      const r = apply(
        local,
        snap(rowFrom(local, { historyVersion: 6, queueVersion: 3, status: "running", retryStateVersion: 2, retryState: RETRY }), {
          messages: { refresh: false, rows: [msg(6, 6, "user")] },
          queue: [],
        }),
      );
      expect(types(r.events)).toEqual(["message", "queue_update", "status", "retry", "preview_reset"]);
    });

    it("retry comes before preview_reset of a new attempt", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { retryStateVersion: 2, retryState: RETRY, generationAttempt: 2 })));
      expect(types(r.events)).toEqual(["retry", "preview_reset"]);
    });
  });

  describe("message synchronization", () => {
    it("without refresh: emits rows newer than the known revision and adds them to the map", () => {
      const known = new Map([
        [1, 1],
        [2, 4],
      ]);
      const rows = [msg(2, 6), msg(3, 6, "tool"), msg(4, 7)];
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 7 }), { messages: { refresh: false, rows } }), known);
      expect(types(r.events)).toEqual(["message", "message", "message", "preview_reset"]);
      expect(ofType(r.events, "message").map((e) => e.message)).toEqual(rows);
      expect(r.events.every((e) => e.chat_id === CHAT)).toBe(true);
      expect(Object.fromEntries(r.known)).toEqual({ 1: 1, 2: 6, 3: 6, 4: 7 });
      expect(r.cursors.historyVersion).toBe(7);
    });

    it("without refresh: skips rows whose revision is not newer than the known one", () => {
      const known = new Map([
        [2, 6],
        [3, 7],
      ]);
      const r = apply(
        BASE,
        snap(rowFrom(BASE, { historyVersion: 7 }), { messages: { refresh: false, rows: [msg(2, 6), msg(3, 6), msg(4, 7)] } }),
        known,
      );
      expect(messageIds(r.events)).toEqual(["4@7"]);
      expect(Object.fromEntries(r.known)).toEqual({ 2: 6, 3: 7, 4: 7 });
    });

    it("without refresh: no history_reset and no new rows means no message event", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 6 }), { messages: { refresh: false, rows: [] } }));
      expect(types(r.events)).toEqual(["preview_reset"]);
    });

    it("with refresh: history_reset, then every message in order, and the known map is replaced", () => {
      const known = new Map([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 5],
      ]);
      // m3 and m4 were removed by an edit; m2 was edited (revision 9), m9 is new. m1 is resent even
      // though the client already has revision 1.
      const rows = [msg(1, 1, "user"), msg(2, 9, "user"), msg(9, 9)];
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 9, generationAttempt: 0 }), { messages: { refresh: true, rows } }), known);
      expect(types(r.events)).toEqual(["history_reset", "message", "message", "message", "preview_reset"]);
      expect(ofType(r.events, "message").map((e) => e.message)).toEqual(rows);
      expect(Object.fromEntries(r.known)).toEqual({ 1: 1, 2: 9, 9: 9 });
    });

    it("with refresh of an empty history: history_reset alone and an empty map", () => {
      const r = apply(
        BASE,
        snap(rowFrom(BASE, { historyVersion: 6, generationAttempt: 0 }), { messages: { refresh: true, rows: [] } }),
        new Map([[1, 1]]),
      );
      expect(types(r.events)).toEqual(["history_reset", "preview_reset"]);
      expect(r.known.size).toBe(0);
    });

    it("runs only when db history_version is greater than local", () => {
      // A reader would not send rows here; even if it did, they are not emitted.
      const r = apply(BASE, snap(rowFrom(BASE), { messages: { refresh: true, rows: [msg(6, 6)] } }), new Map([[1, 1]]));
      expect(r.events).toEqual([]);
      expect(Object.fromEntries(r.known)).toEqual({ 1: 1 });
    });

    it("leaves the known map alone when history did not move", () => {
      const known = new Map([[1, 1]]);
      const r = apply(BASE, snap(rowFrom(BASE, { queueVersion: 3 }), { queue: [] }), known);
      expect(Object.fromEntries(r.known)).toEqual({ 1: 1 });
    });
  });

  describe("queue synchronization", () => {
    it("emits one queue_update with the full queue when queue_version moves", () => {
      const queue = [queued(1, 0), queued(2, 1)];
      const r = apply(BASE, snap(rowFrom(BASE, { queueVersion: 3 }), { queue }));
      expect(r.events).toEqual([{ type: "queue_update", chat_id: CHAT, queued_messages: queue }]);
      expect(r.cursors.queueVersion).toBe(3);
    });

    it("emits an empty queue_update when the queue was emptied", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { queueVersion: 3 }), { queue: [] }));
      expect(r.events).toEqual([{ type: "queue_update", chat_id: CHAT, queued_messages: [] }]);
    });

    it("does not emit when queue_version did not move", () => {
      const r = apply(BASE, snap(rowFrom(BASE), { queue: [queued(1, 0)] }));
      expect(r.events).toEqual([]);
    });
  });

  describe("status synchronization", () => {
    it("emits status only when it changed", () => {
      const changed = apply(BASE, snap(rowFrom(BASE, { status: "interrupting" })));
      expect(changed.events).toEqual([{ type: "status", chat_id: CHAT, status: { status: "interrupting" } }]);
      expect(changed.cursors.status).toBe("interrupting");

      const same = apply(changed.cursors, snap(rowFrom(changed.cursors, { status: "interrupting" })));
      expect(same.events).toEqual([]);
    });

    it("emits the first status from the unset null status", () => {
      const r = apply(NULL_CURSORS, snap(rowFrom(NULL_CURSORS, { status: "waiting" })));
      expect(types(r.events)).toEqual(["status"]);
      expect(r.cursors.status).toBe("waiting");
    });
  });

  describe("error synchronization", () => {
    it("emits the persisted error once per history version", () => {
      const loop = new Loop();
      loop.cursors = cursors({ ...BASE });

      const first = apply(loop.cursors, snap(rowFrom(loop.cursors, { status: "error", error: ERROR, workerId: null })));
      expect(first.events).toEqual([
        { type: "status", chat_id: CHAT, status: { status: "error" } },
        { type: "error", chat_id: CHAT, error: ERROR },
      ]);
      expect(first.cursors.errorHistoryVersion).toBe(BASE.historyVersion);
      loop.cursors = first.cursors;

      // Still errored at the same history version (an unrelated queue change): no second error.
      expect(loop.sync(snap(rowFrom(loop.cursors, { status: "error", error: ERROR, queueVersion: 3 }), { queue: [] }))).toEqual([
        "queue_update",
      ]);
      // Back to running and into error again without the history moving: status, no error.
      expect(loop.sync(snap(rowFrom(loop.cursors, { status: "running", generationAttempt: 2, workerId: W1 })))).toEqual([
        "status",
        "preview_reset",
      ]);
      expect(loop.sync(snap(rowFrom(loop.cursors, { status: "error", error: ERROR, workerId: null })))).toEqual(["status"]);
      expect(loop.cursors.errorHistoryVersion).toBe(BASE.historyVersion);

      // The history moves (the user sends again) and the chat errors again: error again.
      expect(
        loop.sync(
          snap(rowFrom(loop.cursors, { historyVersion: 6, generationAttempt: 0, status: "error", error: ERROR }), {
            messages: { refresh: false, rows: [msg(6, 6, "user")] },
          }),
        ),
      ).toEqual(["message", "error", "preview_reset"]);
      expect(loop.cursors.errorHistoryVersion).toBe(6);
    });

    it("runs only for status error", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 6, status: "waiting", error: ERROR })));
      expect(types(r.events)).not.toContain("error");
      expect(r.cursors.errorHistoryVersion).toBe(0);
    });

    it("emits error on a bootstrap of an errored chat", () => {
      const r = apply(NULL_CURSORS, snap(rowFrom(NULL_CURSORS, { historyVersion: 3, status: "error", error: ERROR })));
      expect(ofType(r.events, "error")).toEqual([{ type: "error", chat_id: CHAT, error: ERROR }]);
      expect(r.cursors.errorHistoryVersion).toBe(3);
    });
  });

  describe("action-required synchronization", () => {
    it("emits action_required with the pending tool calls once per history version", () => {
      const loop = new Loop();
      loop.cursors = cursors({ ...BASE });

      const r = apply(loop.cursors, snap(rowFrom(loop.cursors, { status: "requires_action" }), { pendingToolCalls: TOOL_CALLS }));
      expect(r.events).toEqual([
        { type: "status", chat_id: CHAT, status: { status: "requires_action" } },
        { type: "action_required", chat_id: CHAT, action_required: { tool_calls: TOOL_CALLS } },
      ]);
      expect(r.cursors.actionRequiredHistoryVersion).toBe(BASE.historyVersion);
      loop.cursors = r.cursors;

      // Still requires_action at the same history version: nothing more.
      expect(loop.sync(snap(rowFrom(loop.cursors, { status: "requires_action" }), { pendingToolCalls: TOOL_CALLS }))).toEqual([]);
      // The tool results are committed, the chat runs and needs action again: a new history version.
      expect(
        loop.sync(
          snap(rowFrom(loop.cursors, { historyVersion: 6, generationAttempt: 0, status: "running" }), {
            messages: { refresh: false, rows: [msg(6, 6, "tool")] },
          }),
        ),
      ).toEqual(["message", "status", "preview_reset"]);
      expect(
        loop.sync(snap(rowFrom(loop.cursors, { historyVersion: 7, status: "requires_action" }), { pendingToolCalls: TOOL_CALLS })),
      ).toEqual(["status", "action_required", "preview_reset"]);
      expect(loop.cursors.actionRequiredHistoryVersion).toBe(7);
    });

    it("does not repeat after leaving and re-entering requires_action at the same history version", () => {
      const loop = new Loop();
      loop.cursors = cursors({ ...BASE, status: "requires_action", actionRequiredHistoryVersion: BASE.historyVersion });
      expect(loop.sync(snap(rowFrom(loop.cursors, { status: "running" })))).toEqual(["status"]);
      expect(loop.sync(snap(rowFrom(loop.cursors, { status: "requires_action" }), { pendingToolCalls: TOOL_CALLS }))).toEqual(["status"]);
    });

    it("runs only for status requires_action", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 6 }), { pendingToolCalls: TOOL_CALLS }));
      expect(types(r.events)).not.toContain("action_required");
      expect(r.cursors.actionRequiredHistoryVersion).toBe(0);
    });
  });

  describe("retry-state synchronization", () => {
    it("emits retry when retry_state_version moves, retry_state is set and the chat is running", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { retryStateVersion: 2, retryState: RETRY })));
      expect(r.events).toEqual([{ type: "retry", chat_id: CHAT, retry: RETRY }]);
      expect(r.cursors.retryStateVersion).toBe(2);
    });

    it("emits nothing when retry_state was cleared", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { retryStateVersion: 2, retryState: null })));
      expect(r.events).toEqual([]);
      expect(r.cursors.retryStateVersion).toBe(2);
    });

    it.each(["waiting", "interrupting", "requires_action", "error"] as const)("emits no retry when the status is %s", (status) => {
      const local = cursors({ ...BASE, status });
      const r = apply(local, snap(rowFrom(local, { status, retryStateVersion: 2, retryState: RETRY, error: ERROR })));
      expect(types(r.events)).not.toContain("retry");
    });

    it("emits no retry when retry_state_version did not move", () => {
      const local = cursors({ ...BASE, attemptRetired: true });
      const r = apply(local, snap(rowFrom(local, { retryState: RETRY })));
      expect(r.events).toEqual([]);
    });
  });

  describe("attempt_retired (step 7)", () => {
    it("is set by a retry of the current attempt", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { retryStateVersion: 2, retryState: RETRY })));
      expect(r.cursors.attemptRetired).toBe(true);
    });

    it("is set when the chat is in error", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { status: "error", error: ERROR })));
      expect(r.cursors.attemptRetired).toBe(true);
    });

    it("is set by a retry_state_version bump within the same episode even when retry_state is null", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { retryStateVersion: 2, retryState: null })));
      expect(r.cursors.attemptRetired).toBe(true);
    });

    it("is set whenever retry_state is non-null, even without a retry_state_version bump", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { retryState: RETRY })));
      expect(r.cursors.attemptRetired).toBe(true);
    });

    it("stays unset on an unrelated change within a healthy episode", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { queueVersion: 3 }), { queue: [] }));
      expect(r.cursors.attemptRetired).toBe(false);
    });

    it("stays set if the retry is later cancelled within the same episode", () => {
      const retired = apply(BASE, snap(rowFrom(BASE, { retryStateVersion: 2, retryState: RETRY })));
      expect(retired.cursors.attemptRetired).toBe(true);
      // Cancelled: retry_state cleared (version bumped), chat back to waiting, same episode.
      const cancelled = apply(
        retired.cursors,
        snap(rowFrom(retired.cursors, { retryStateVersion: 3, retryState: null, status: "waiting", workerId: null })),
      );
      expect(types(cancelled.events)).toEqual(["status"]);
      expect(cancelled.cursors.attemptRetired).toBe(true);
      // And it stays set through later syncs of that episode.
      const later = apply(cancelled.cursors, snap(rowFrom(cancelled.cursors, { queueVersion: 3 }), { queue: [] }));
      expect(later.cursors.attemptRetired).toBe(true);
    });

    it("is cleared by a new generation attempt", () => {
      const local = cursors({ ...BASE, retryStateVersion: 2, attemptRetired: true });
      // The retry starts attempt 2: retry_state cleared, its version bumped, in a new episode.
      const r = apply(local, snap(rowFrom(local, { generationAttempt: 2, retryStateVersion: 3, retryState: null })));
      expect(r.cursors.attemptRetired).toBe(false);
    });

    it("is cleared by a new history version", () => {
      const local = cursors({ ...BASE, status: "error", attemptRetired: true });
      const r = apply(local, snap(rowFrom(local, { historyVersion: 6, generationAttempt: 0, status: "running" })));
      expect(r.cursors.attemptRetired).toBe(false);
    });

    it("is cleared by an attempt change to 0", () => {
      const local = cursors({ ...BASE, attemptRetired: true });
      const r = apply(local, snap(rowFrom(local, { generationAttempt: 0, status: "waiting" })));
      expect(r.cursors.attemptRetired).toBe(false);
    });

    it("a new episode whose attempt already failed is retired", () => {
      const local = cursors({ ...BASE, attemptRetired: true });
      const r = apply(local, snap(rowFrom(local, { generationAttempt: 2, retryStateVersion: 3, retryState: RETRY })));
      expect(r.cursors.attemptRetired).toBe(true);
    });

    it("a new episode of an errored chat is retired", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 6, generationAttempt: 0, status: "error", error: ERROR })));
      expect(r.cursors.attemptRetired).toBe(true);
    });
  });

  describe("preview_reset (step 8)", () => {
    it("is emitted on a history change and resets the part seq", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 6 }), { messages: { refresh: false, rows: [] } }));
      expect(types(r.events)).toEqual(["preview_reset"]);
      expect(r.cursors.lastPartSeq).toBe(0);
    });

    it("is emitted on a history change even when the attempt goes to 0", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { historyVersion: 6, generationAttempt: 0 })));
      expect(types(r.events)).toEqual(["preview_reset"]);
      expect(r.cursors.lastPartSeq).toBe(0);
    });

    it("is emitted on an attempt change to a non-zero attempt", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { generationAttempt: 2 })));
      expect(types(r.events)).toEqual(["preview_reset"]);
      expect(r.cursors.lastPartSeq).toBe(0);
      expect(r.cursors.generationAttempt).toBe(2);
    });

    it("is emitted on the first attempt after a history change (0 -> 1)", () => {
      const local = cursors({ ...BASE, generationAttempt: 0, lastPartSeq: 0 });
      const r = apply(local, snap(rowFrom(local, { generationAttempt: 1 })));
      expect(types(r.events)).toEqual(["preview_reset"]);
    });

    it("is not emitted when the attempt goes to 0 with the same history", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { generationAttempt: 0 })));
      expect(r.events).toEqual([]);
      expect(r.cursors.lastPartSeq).toBe(BASE.lastPartSeq);
      expect(r.cursors.generationAttempt).toBe(0);
    });

    it("is not emitted and keeps the part seq when the episode is unchanged", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { status: "interrupting", workerId: W2 })));
      expect(types(r.events)).toEqual(["status"]);
      expect(r.cursors.lastPartSeq).toBe(BASE.lastPartSeq);
    });
  });

  describe("relay target (step 9)", () => {
    it("is configured with the db worker and episode when generation_attempt > 0", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { generationAttempt: 2, workerId: W2 })));
      expect(r.relay).toEqual({ workerId: W2, historyVersion: BASE.historyVersion, generationAttempt: 2 });
    });

    it("is configured on every applied sync of an attempt > 0, even when the episode is unchanged", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { queueVersion: 3 }), { queue: [] }));
      expect(r.relay).toEqual({ workerId: W1, historyVersion: BASE.historyVersion, generationAttempt: 1 });
    });

    it("passes a null worker_id through (the forwarder stops)", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { workerId: null, status: "waiting" })));
      expect(r.relay).toEqual({ workerId: null, historyVersion: BASE.historyVersion, generationAttempt: 1 });
    });

    it("is left as it is when generation_attempt is 0", () => {
      expect(apply(BASE, snap(rowFrom(BASE, { generationAttempt: 0 }))).relay).toBeUndefined();
      expect(apply(BASE, snap(rowFrom(BASE, { historyVersion: 6, generationAttempt: 0, workerId: null }))).relay).toBeUndefined();
      expect(apply(NULL_CURSORS, snap(rowFrom(NULL_CURSORS, { historyVersion: 2 }))).relay).toBeUndefined();
    });
  });

  describe("saved cursors (step 10)", () => {
    it("saves the db's snapshot, history, queue and retry-state versions, status, worker and attempt", () => {
      const chat = rowFrom(BASE, {
        snapshotVersion: 42,
        historyVersion: 9,
        queueVersion: 7,
        retryStateVersion: 4,
        status: "interrupting",
        workerId: W2,
        generationAttempt: 3,
      });
      const r = apply(BASE, snap(chat, { messages: { refresh: false, rows: [] }, queue: [] }));
      expect(r.cursors).toEqual({
        ...BASE,
        snapshotVersion: 42,
        historyVersion: 9,
        queueVersion: 7,
        retryStateVersion: 4,
        status: "interrupting",
        workerId: W2,
        generationAttempt: 3,
        lastPartSeq: 0,
        attemptRetired: false,
      });
    });

    it("saves a null worker and attempt 0", () => {
      const r = apply(BASE, snap(rowFrom(BASE, { workerId: null, generationAttempt: 0, status: "waiting" })));
      expect(r.cursors.workerId).toBeNull();
      expect(r.cursors.generationAttempt).toBe(0);
    });

    it("the saved cursors turn the same hints into a no-op", () => {
      const chat = rowFrom(BASE, {
        historyVersion: 6,
        queueVersion: 3,
        retryStateVersion: 2,
        status: "waiting",
        workerId: null,
        generationAttempt: 0,
      });
      const r = apply(BASE, snap(chat, { messages: { refresh: false, rows: [] }, queue: [] }));
      const hints: SyncHints = {
        snapshotVersion: chat.snapshotVersion,
        historyVersion: chat.historyVersion,
        queueVersion: chat.queueVersion,
        retryStateVersion: chat.retryStateVersion,
        status: chat.status,
        workerId: chat.workerId,
        generationAttempt: chat.generationAttempt,
      };
      expect(hintsCallForFetch(r.cursors, hints)).toBe(false);
      expect(hintsCallForFetch(r.cursors, { ...hints, snapshotVersion: chat.snapshotVersion + 1 })).toBe(false);
      expect(hintsCallForFetch(BASE, hints)).toBe(true);
      // The same snapshot fetched again is a no-op.
      expect(applySnapshot(CHAT, r.cursors, r.known, snap(chat))).toBeNull();
    });
  });

  describe("bootstrap from the null state", () => {
    it("of a mid-generation chat emits the full state, then preview_reset, and targets the relay", () => {
      const rows = [msg(1, 1, "user"), msg(2, 2), msg(3, 3, "user")];
      const queue = [queued(1, 0)];
      const chat: SyncChatRow = {
        snapshotVersion: 17,
        historyVersion: 3,
        queueVersion: 4,
        retryStateVersion: 2,
        generationAttempt: 2,
        status: "running",
        workerId: W1,
        retryState: null,
        error: null,
      };
      const r = apply(NULL_CURSORS, snap(chat, { messages: { refresh: false, rows }, queue }));
      expect(r.events).toEqual([
        { type: "message", chat_id: CHAT, message: rows[0] },
        { type: "message", chat_id: CHAT, message: rows[1] },
        { type: "message", chat_id: CHAT, message: rows[2] },
        { type: "queue_update", chat_id: CHAT, queued_messages: queue },
        { type: "status", chat_id: CHAT, status: { status: "running" } },
        { type: "preview_reset", chat_id: CHAT },
      ]);
      expect(r.relay).toEqual({ workerId: W1, historyVersion: 3, generationAttempt: 2 });
      expect(r.cursors).toEqual({
        ...NULL_CURSORS,
        snapshotVersion: 17,
        historyVersion: 3,
        queueVersion: 4,
        retryStateVersion: 2,
        status: "running",
        workerId: W1,
        generationAttempt: 2,
      });
      expect(Object.fromEntries(r.known)).toEqual({ 1: 1, 2: 2, 3: 3 });
      // The first part of the attempt is the next one accepted.
      expect(judgePart(r.cursors, { historyVersion: 3, generationAttempt: 2, seq: 1 })).toBe("accept");
    });

    it("of a chat waiting before a retry emits the retry and retires the attempt", () => {
      const chat = rowFrom(NULL_CURSORS, {
        historyVersion: 3,
        retryStateVersion: 1,
        generationAttempt: 1,
        status: "running",
        workerId: W1,
        retryState: RETRY,
      });
      const r = apply(NULL_CURSORS, snap(chat, { messages: { refresh: false, rows: [msg(3, 3, "user")] } }));
      expect(types(r.events)).toEqual(["message", "status", "retry", "preview_reset"]);
      expect(r.cursors.attemptRetired).toBe(true);
      expect(judgePart(r.cursors, { historyVersion: 3, generationAttempt: 1, seq: 1 })).toBe("reject");
    });

    it("of a chat in requires_action emits action_required", () => {
      const chat = rowFrom(NULL_CURSORS, { historyVersion: 4, status: "requires_action" });
      const r = apply(NULL_CURSORS, snap(chat, { messages: { refresh: false, rows: [msg(4, 4)] }, pendingToolCalls: TOOL_CALLS }));
      expect(types(r.events)).toEqual(["message", "status", "action_required", "preview_reset"]);
      expect(r.relay).toBeUndefined();
    });
  });
});

describe("judgePart (Part operation)", () => {
  const local = cursors({ ...BASE, historyVersion: 5, generationAttempt: 2, lastPartSeq: 3 });
  const part = (over: Partial<RelayedPart> = {}): RelayedPart => ({ historyVersion: 5, generationAttempt: 2, seq: 4, ...over });

  it("accepts the next seq of the current episode", () => {
    expect(judgePart(local, part())).toBe("accept");
  });

  it("accepts seq 1 right after a preview reset", () => {
    expect(judgePart(cursors({ ...local, lastPartSeq: 0 }), part({ seq: 1 }))).toBe("accept");
  });

  it("rejects a part of another history version", () => {
    expect(judgePart(local, part({ historyVersion: 4 }))).toBe("reject");
    expect(judgePart(local, part({ historyVersion: 6 }))).toBe("reject");
  });

  it("rejects a part of another generation attempt", () => {
    expect(judgePart(local, part({ generationAttempt: 1 }))).toBe("reject");
    expect(judgePart(local, part({ generationAttempt: 3 }))).toBe("reject");
  });

  it("rejects a part of another episode without calling it a gap, whatever its seq", () => {
    expect(judgePart(local, part({ generationAttempt: 3, seq: 50 }))).toBe("reject");
    expect(judgePart(local, part({ historyVersion: 6, seq: 50 }))).toBe("reject");
  });

  it("rejects a duplicate or earlier seq", () => {
    expect(judgePart(local, part({ seq: 3 }))).toBe("reject");
    expect(judgePart(local, part({ seq: 1 }))).toBe("reject");
  });

  it("reports a gap when the seq skips ahead", () => {
    expect(judgePart(local, part({ seq: 5 }))).toBe("gap");
    expect(judgePart(local, part({ seq: 100 }))).toBe("gap");
    expect(judgePart(cursors({ ...local, lastPartSeq: 0 }), part({ seq: 2 }))).toBe("gap");
  });

  it("rejects every part of a retired attempt, even the next seq", () => {
    expect(judgePart(cursors({ ...local, attemptRetired: true }), part())).toBe("reject");
  });

  it("retired rejects before the sequence check: a skipped-ahead seq is not a gap", () => {
    const retired = cursors({ ...local, attemptRetired: true });
    expect(judgePart(retired, part({ seq: 5 }))).toBe("reject");
    expect(judgePart(retired, part({ seq: 1000 }))).toBe("reject");
  });
});

describe("scenario: send, attempt 1, retry, attempt 2, commit, waiting", () => {
  it("emits exactly the spec's events in order", () => {
    const loop = new Loop();
    const chat = (over: Partial<SyncChatRow>): SyncChatRow => ({ ...rowFrom(loop.cursors), ...over });

    // Bootstrap: an idle chat with two committed messages.
    expect(
      loop.sync(
        snap(
          {
            snapshotVersion: 10,
            historyVersion: 2,
            queueVersion: 0,
            retryStateVersion: 0,
            generationAttempt: 0,
            status: "waiting",
            workerId: null,
            retryState: null,
            error: null,
          },
          { messages: { refresh: false, rows: [msg(1, 1, "user"), msg(2, 2)] } },
        ),
      ),
    ).toEqual(["message", "message", "status", "preview_reset"]);
    expect(loop.relay).toBeUndefined();

    // A stale poller hint changes nothing.
    expect(hintsCallForFetch(loop.cursors, { snapshotVersion: 10, historyVersion: 2, status: "waiting", workerId: null })).toBe(false);

    // Send: the user's message is committed and the chat starts running.
    const sendHints: SyncHints = { snapshotVersion: 11, historyVersion: 3, status: "running" };
    expect(hintsCallForFetch(loop.cursors, sendHints)).toBe(true);
    expect(
      loop.sync(snap(chat({ historyVersion: 3, status: "running" }), { messages: { refresh: false, rows: [msg(3, 3, "user")] } })),
    ).toEqual(["message", "status", "preview_reset"]);
    expect(loop.relay).toBeUndefined();

    // The worker claims the chat and starts attempt 1.
    expect(hintsCallForFetch(loop.cursors, { snapshotVersion: 12, workerId: W1, generationAttempt: 1 })).toBe(true);
    expect(loop.sync(snap(chat({ workerId: W1, generationAttempt: 1 })))).toEqual(["preview_reset"]);
    expect(loop.relay).toEqual({ workerId: W1, historyVersion: 3, generationAttempt: 1 });
    expect(loop.part({ historyVersion: 3, generationAttempt: 1, seq: 1 })).toBe("accept");
    expect(loop.part({ historyVersion: 3, generationAttempt: 1, seq: 2 })).toBe("accept");

    // Attempt 1 fails: the worker waits before retrying. Its remaining parts are dropped.
    expect(hintsCallForFetch(loop.cursors, { snapshotVersion: 13, retryStateVersion: 1 })).toBe(true);
    expect(loop.sync(snap(chat({ retryStateVersion: 1, retryState: RETRY })))).toEqual(["retry"]);
    expect(loop.cursors.attemptRetired).toBe(true);
    expect(loop.part({ historyVersion: 3, generationAttempt: 1, seq: 3 })).toBe("reject");
    expect(loop.part({ historyVersion: 3, generationAttempt: 1, seq: 9 })).toBe("reject");

    // Attempt 2 starts: retry_state cleared.
    expect(loop.sync(snap(chat({ retryStateVersion: 2, retryState: null, generationAttempt: 2 })))).toEqual(["preview_reset"]);
    expect(loop.cursors.attemptRetired).toBe(false);
    expect(loop.relay).toEqual({ workerId: W1, historyVersion: 3, generationAttempt: 2 });
    // A late part of attempt 1 is not of the current episode.
    expect(loop.part({ historyVersion: 3, generationAttempt: 1, seq: 3 })).toBe("reject");
    expect(loop.part({ historyVersion: 3, generationAttempt: 2, seq: 1 })).toBe("accept");
    expect(loop.part({ historyVersion: 3, generationAttempt: 2, seq: 2 })).toBe("accept");
    expect(loop.part({ historyVersion: 3, generationAttempt: 2, seq: 3 })).toBe("accept");

    // The assistant message is committed; the history moves and the attempt goes back to 0.
    expect(loop.sync(snap(chat({ historyVersion: 4, generationAttempt: 0 }), { messages: { refresh: false, rows: [msg(4, 4)] } }))).toEqual(
      ["message", "preview_reset"],
    );
    // The relay keeps its last target; parts of the old episode no longer match.
    expect(loop.relay).toEqual({ workerId: W1, historyVersion: 3, generationAttempt: 2 });
    expect(loop.part({ historyVersion: 3, generationAttempt: 2, seq: 4 })).toBe("reject");

    // The turn ends: waiting, the worker releases the chat.
    expect(hintsCallForFetch(loop.cursors, { snapshotVersion: 16, status: "waiting", workerId: null })).toBe(true);
    expect(loop.sync(snap(chat({ status: "waiting", workerId: null })))).toEqual(["status"]);

    // A duplicate of the last notification is a no-op.
    expect(hintsCallForFetch(loop.cursors, { snapshotVersion: 16, status: "waiting", workerId: null })).toBe(false);
    expect(loop.sync(snap({ ...rowFrom(loop.cursors), snapshotVersion: 16 }))).toEqual([]);

    expect(loop.emitted).toEqual([
      "message",
      "message",
      "status",
      "preview_reset",
      "message",
      "status",
      "preview_reset",
      "preview_reset",
      "message_part",
      "message_part",
      "retry",
      "preview_reset",
      "message_part",
      "message_part",
      "message_part",
      "message",
      "preview_reset",
      "status",
    ]);
    expect(loop.cursors).toEqual({
      ...NULL_CURSORS,
      snapshotVersion: 16,
      historyVersion: 4,
      queueVersion: 0,
      retryStateVersion: 2,
      status: "waiting",
      workerId: null,
      generationAttempt: 0,
      errorHistoryVersion: 0,
      actionRequiredHistoryVersion: 0,
      lastPartSeq: 0,
      attemptRetired: false,
    });
    expect(Object.fromEntries(loop.known)).toEqual({ 1: 1, 2: 2, 3: 3, 4: 4 });
  });
});
