/**
 * R1's reference model: what the spec says a chat looks like after each public call, written from
 * docs/api.md and the spec's transition lists (endpoint-transitions' LANDS table), not from
 * src/chatstate. Pure: no I/O. The walk (walk.ts) applies each call to the model and to the real
 * service and compares.
 *
 * The fake model's reply to a turn is drawn with the message (a directive in its text), so the
 * model knows how every turn ends: `echo` and `flaky` (one retryable 503, then the echo) answer,
 * `tool` calls a client tool (requires_action), `fail` is a non-retryable 400 (error), `hang`
 * never answers and keeps the chat running until something interrupts it. Between calls every
 * chat is quiescent: in W, E0, E1, A0, A1, a hanging R0/R1, archived, or Invalid. The interrupting
 * states I0/I1 are transient (the chat's worker finishes the interruption at once), so the model
 * resolves them inside the call that enters them.
 */

export type State = "W" | "E0" | "E1" | "R0" | "R1" | "A0" | "A1" | "XW" | "XE0" | "XE1" | "Invalid";
export type Reply = "echo" | "flaky" | "hang" | "tool" | "fail";
export const REPLIES: readonly Reply[] = ["echo", "flaky", "hang", "tool", "fail"];

/** The one client tool every walk chat declares. */
export const CLIENT_TOOL = "ask_user";
/** The fake model's answer to a turn ending in tool results (scripts/fake-model/script.ts). */
export const TOOL_RESULT_PREFIX = "tool result received: ";

export interface Row {
  role: "user" | "assistant" | "tool";
  /** user: the text sent; assistant: `text:<reply>` or `call:<tool>`; tool: `result:<tool>`. */
  label: string;
  /** Boundary rows of a compaction or clear (the spec's "compressed"). */
  compressed: boolean;
  /** Rows the model sees but GET /messages does not return (anchors, replayed input). */
  modelOnly: boolean;
  /** For user rows: how the fake model answers when this is the message being answered. */
  reply?: Reply;
  /** A row that may or may not be there (a race the walk cannot order); the walk keeps what the API shows. */
  optional?: boolean;
}

export interface Queued {
  text: string;
  reply: Reply;
}

export interface ChatModel {
  key: number;
  id: string;
  owner: number;
  state: State;
  rows: Row[];
  queue: Queued[];
}

export interface WalkModel {
  chats: ChatModel[];
}

/** The spec's rejection of a call: 409 (transition_not_allowed, invalid_state, nothing_to_*), 429 queue_full. */
export interface Rejection {
  status: number;
  code: string;
}

export const MAX_QUEUED = 20;

/** The text a message carries so the fake model answers as drawn; `word` makes it unique. */
export function messageText(reply: Reply, word: string): string {
  switch (reply) {
    case "echo":
      return `say ${word}`;
    case "flaky":
      return `/error 503 1 flaky ${word}`;
    case "hang":
      return `/hang ${word}`;
    case "tool":
      return `/tool ${CLIENT_TOOL} {"word":"${word}"}`;
    case "fail":
      return `/error 400 ${word}`;
  }
}

/** What the fake model streams back for a turn whose last user message is `text`. */
function echoOf(text: string, reply: Reply): string {
  if (reply === "flaky") return text.replace(/^\/error 503 1 /, "");
  return text;
}

export function statusOf(state: State): { status: string; archived: boolean } {
  switch (state) {
    case "W":
    case "XW":
      return { status: "waiting", archived: state === "XW" };
    case "E0":
    case "E1":
    case "XE0":
    case "XE1":
      return { status: "error", archived: state.startsWith("X") };
    case "R0":
    case "R1":
      return { status: "running", archived: false };
    case "A0":
    case "A1":
      return { status: "requires_action", archived: false };
    case "Invalid":
      return { status: "running", archived: true };
  }
}

const isArchived = (s: State) => s === "XW" || s === "XE0" || s === "XE1";

// ---- derived facts about a chat's rows (the spec's "latest boundary") ----

function boundaryIndex(rows: readonly Row[]): number {
  return rows.findLastIndex((r) => r.compressed);
}

export function somethingToCompact(c: ChatModel): boolean {
  const b = boundaryIndex(c.rows);
  return c.rows.some((r, i) => i > b && r.role === "assistant" && !r.compressed);
}

export function somethingToClear(c: ChatModel): boolean {
  const b = boundaryIndex(c.rows);
  return c.rows.some((r, i) => i > b && !r.compressed);
}

/** The row that decides the next step: the last one the user sees that is not a boundary row. */
function lastDeciding(c: ChatModel): Row | undefined {
  return c.rows.findLast((r) => !r.modelOnly && !r.compressed);
}

export function visibleRows(c: ChatModel): Row[] {
  return c.rows.filter((r) => !r.modelOnly);
}

/** User messages that can be edited: active, shown to the user. */
export function editableRows(c: ChatModel): number[] {
  return c.rows.flatMap((r, i) => (r.role === "user" && !r.modelOnly ? [i] : []));
}

const user = (q: Queued): Row => ({ role: "user", label: q.text, compressed: false, modelOnly: false, reply: q.reply });
const assistantText = (text: string): Row => ({ role: "assistant", label: `text:${text}`, compressed: false, modelOnly: false });
const cancelledCall = (): Row => ({ role: "tool", label: `result:${CLIENT_TOOL}`, compressed: false, modelOnly: false });

function boundary(tool: "chat_summarized" | "chat_cleared", anchor: string): Row[] {
  return [
    { role: "user", label: anchor, compressed: true, modelOnly: true },
    { role: "assistant", label: `call:${tool}`, compressed: true, modelOnly: false },
    { role: "tool", label: `result:${tool}`, compressed: true, modelOnly: false },
  ];
}

/**
 * A running chat's worker, to quiescence: answer, call the client tool, fail, or hang; finishing a
 * turn with a queue promotes its head and goes on. `compact`: a RequestCompaction marker.
 */
function work(c: ChatModel, compact = false): void {
  for (let guard = 0; guard < 200; guard++) {
    if (compact) {
      compact = false;
      if (somethingToCompact(c)) {
        // Replays: the user messages the assistant had not answered yet, model-only after the triplet.
        const lastAnswer = c.rows.findLastIndex((r) => r.role === "assistant" && !r.compressed);
        const replays = c.rows
          .filter((r, i) => i > lastAnswer && r.role === "user" && !r.modelOnly && !r.compressed)
          .map((r) => ({ ...r, modelOnly: true }));
        c.rows.push(...boundary("chat_summarized", "summary"), ...replays);
        continue;
      }
    }
    const last = lastDeciding(c);
    if (last === undefined || last.role === "assistant") {
      // FinishTurn: R0 -> W; R1 -> the head enters history and runs.
      if (c.state === "R0") {
        c.state = "W";
        return;
      }
      c.rows.push(user(c.queue.shift()!));
      c.state = c.queue.length > 0 ? "R1" : "R0";
      continue;
    }
    if (last.role === "tool") {
      c.rows.push(assistantText(`${TOOL_RESULT_PREFIX}…`));
      continue;
    }
    switch (last.reply!) {
      case "echo":
      case "flaky":
        c.rows.push(assistantText(echoOf(last.label, last.reply!)));
        continue;
      case "hang":
        return;
      case "tool":
        c.rows.push({ role: "assistant", label: `call:${CLIENT_TOOL}`, compressed: false, modelOnly: false });
        c.state = c.state === "R0" ? "A0" : "A1";
        return;
      case "fail":
        c.state = c.state === "R0" ? "E0" : "E1";
        return;
    }
  }
  throw new Error(`model: chat ${c.key} did not settle`);
}

/** The interrupting state's end: I0 -> W; I1 -> the head enters history and runs. */
function finishInterruption(c: ChatModel, queued: boolean): void {
  if (!queued) {
    c.state = "W";
    return;
  }
  c.rows.push(user(c.queue.shift()!));
  c.state = c.queue.length > 0 ? "R1" : "R0";
  work(c);
}

const NO: Rejection = { status: 409, code: "transition_not_allowed" };
const INVALID: Rejection = { status: 409, code: "invalid_state" };
const reject = (c: ChatModel): Rejection => (c.state === "Invalid" ? INVALID : NO);

export type Call =
  | { kind: "send"; busy: "queue" | "interrupt"; message: Queued }
  | { kind: "edit"; row: number; message: Queued }
  | { kind: "delete_queued"; index: number }
  | { kind: "promote_queued"; index: number }
  | { kind: "interrupt" }
  | { kind: "tool_results" }
  | { kind: "compact" }
  | { kind: "clear" }
  | { kind: "archive"; interrupt: boolean }
  | { kind: "unarchive" }
  | { kind: "reconcile" };

/**
 * Applies `call` to chat `c` as the spec says: the rejection it must get (and `c` untouched), or
 * null with `c` moved to where it settles.
 */
export function apply(c: ChatModel, call: Call): Rejection | null {
  const s = c.state;
  switch (call.kind) {
    case "send": {
      const m = call.message;
      if (s === "W" || s === "E0") {
        c.rows.push(user(m));
        c.state = "R0";
        work(c);
        return null;
      }
      if (s === "E1") {
        // The head enters history first, then m joins the queue's end.
        c.rows.push(user(c.queue.shift()!));
        c.queue.push(m);
        c.state = "R1";
        work(c);
        return null;
      }
      if (s === "R0" || s === "R1" || s === "A0" || s === "A1") {
        if (c.queue.length >= MAX_QUEUED) return { status: 429, code: "queue_full" };
        c.queue.push(m);
        if (call.busy === "queue") {
          c.state = s === "R0" || s === "R1" ? "R1" : "A1";
          return null;
        }
        if (s === "A0" || s === "A1") {
          // Pending client calls are answered with cancellations; the turn goes on, then the queue.
          c.rows.push(cancelledCall());
          c.state = "R1";
          work(c);
          return null;
        }
        finishInterruption(c, true);
        return null;
      }
      return reject(c);
    }
    case "edit": {
      if (!["W", "E0", "E1", "R0", "R1", "A0", "A1"].includes(s)) return reject(c);
      c.rows = c.rows.slice(0, call.row);
      c.rows.push(user(call.message));
      c.queue = [];
      c.state = "R0";
      work(c);
      return null;
    }
    case "delete_queued": {
      if (!["E1", "R1", "A1"].includes(s)) return reject(c);
      c.queue.splice(call.index, 1);
      if (c.queue.length === 0) c.state = s === "E1" ? "E0" : s === "R1" ? "R0" : "A0";
      return null;
    }
    case "promote_queued": {
      if (!["E1", "R1", "A1"].includes(s)) return reject(c);
      const [q] = c.queue.splice(call.index, 1);
      if (s === "R1") {
        // To the head, and the current work is interrupted; the interruption promotes it.
        c.queue.unshift(q!);
        finishInterruption(c, true);
        return null;
      }
      if (s === "A1") c.rows.push(cancelledCall());
      c.rows.push(user(q!));
      c.state = c.queue.length > 0 ? "R1" : "R0";
      work(c);
      return null;
    }
    case "interrupt": {
      if (s === "R0" || s === "R1") {
        finishInterruption(c, s === "R1");
        return null;
      }
      if (s === "A0" || s === "A1") {
        c.rows.push(cancelledCall());
        c.state = s === "A0" ? "R0" : "R1";
        work(c);
        return null;
      }
      return reject(c);
    }
    case "tool_results": {
      if (s !== "A0" && s !== "A1") return reject(c);
      c.rows.push({ role: "tool", label: `result:${CLIENT_TOOL}`, compressed: false, modelOnly: false });
      c.state = s === "A0" ? "R0" : "R1";
      work(c);
      return null;
    }
    case "compact": {
      if (s !== "W" && s !== "E0" && s !== "E1") return reject(c);
      if (!somethingToCompact(c)) return { status: 409, code: "nothing_to_compact" };
      c.state = s === "E1" ? "R1" : "R0";
      work(c, true);
      return null;
    }
    case "clear": {
      if (s !== "W" && s !== "E0") return reject(c);
      if (!somethingToClear(c)) return { status: 409, code: "nothing_to_clear" };
      c.rows.push(...boundary("chat_cleared", "cleared"));
      c.state = "W";
      return null;
    }
    case "archive": {
      if (isArchived(s) || s === "Invalid") return null; // already archived: answered, nothing written
      if (s === "W" || s === "E0" || s === "E1") {
        c.state = `X${s}` as State;
        return null;
      }
      // A plain PATCH keeps the spec's 409; with interrupt a running chat with a queue is refused.
      if (!call.interrupt || c.queue.length > 0) return NO;
      if (s === "A0") {
        // The pending call is cancelled (A0 -> R0) and the chat interrupted again while it still
        // runs (the command polls every 100 ms): the answer to the cancellation may have landed
        // first, whole or in part, or not at all.
        c.rows.push(cancelledCall(), { ...assistantText("…"), optional: true });
        c.state = "XW";
        return null;
      }
      apply(c, { kind: "interrupt" });
      if (c.state !== "W" && c.state !== "E0" && c.state !== "E1") throw new Error(`model: interrupt left ${c.state}`);
      c.state = `X${c.state}` as State;
      return null;
    }
    case "unarchive": {
      if (s === "Invalid") return INVALID;
      if (isArchived(s)) c.state = s.slice(1) as State;
      return null;
    }
    case "reconcile": {
      if (s !== "Invalid") return NO;
      c.state = c.queue.length > 0 ? "E1" : "E0";
      return null;
    }
  }
}

/** POST /chats: with a message the chat runs it (N -> R0), without one it waits (N -> W). */
export function create(key: number, id: string, owner: number, first: Queued | null): ChatModel {
  const c: ChatModel = { key, id, owner, state: "W", rows: [], queue: [] };
  if (first !== null) {
    c.rows.push(user(first));
    c.state = "R0";
    work(c);
  }
  return c;
}

/** The walk's direct write (no call makes one): running and archived at once, a state the spec calls invalid. */
export function corruptible(c: ChatModel): boolean {
  return c.state === "W" || c.state === "E0" || c.state === "E1";
}
