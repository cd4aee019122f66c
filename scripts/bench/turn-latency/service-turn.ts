/**
 * One service turn on a fresh empty chat: create the chat (untimed), open the parts socket on the
 * episode the first message will create, then POST the message and time what follows. With
 * `followUp`, the chat first runs an untimed turn of its own and the timed turn is its second: the
 * path every later turn of a conversation takes (a prompt size to gate compaction on, a warm object).
 * `thinkMs` pauses between the two turns as a user reading the answer and typing would.
 * With `edit` as well, the timed request edits the first turn's message (PATCH) instead of sending.
 *
 * A POST to a waiting chat lands at history_version = snapshot_version + 1 (its transaction's new
 * snapshot), and the first model call of that turn is generation_attempt 1.
 */
import { wireTraceFromEnv } from "../../lib/pg-wire-trace";
import type { WsProxy } from "../../lib/ws-proxy";
import type { ModelTap } from "./model-tap";
import { openPartsSocket, type PartFrame, type PartsSocket } from "./parts-socket";
import type { TurnEndWatcher } from "./turn-end";

export interface ServiceTurnTiming {
  chatId: string;
  /** The untimed set-up's POST /chats (an empty chat): its response, and the database round trips and connections it took. */
  createMs: number;
  createRoundTrips: number | undefined;
  createConnections: number | undefined;
  /** POST /messages start → its response. */
  postAckMs: number;
  /**
   * The dev server's own floor just before the POST: the median of a few unauthenticated requests
   * (401 from the Worker, no database, no object) through the same client and `wrangler dev`.
   */
  devServerFloorMs: number;
  /** POST start → first frame on the parts socket ("first part leaving the object"). */
  firstPartMs: number | undefined;
  /** POST start → first text part frame. */
  firstTextMs: number | undefined;
  /** POST start → the last frame (it may arrive after the turn was seen done). */
  lastPartMs: number | undefined;
  /** POST start → the poll that first saw status "waiting" returned. */
  turnMs: number;
  /** Round trip of the status polls (the turn end's resolution is one of these plus the poll gap). */
  pollRttMs: number[];
  /** With --trace-model: POST start → the service's model request arrived / its first / last byte went back. */
  modelRequestMs: number | undefined;
  modelFirstByteMs: number | undefined;
  modelLastByteMs: number | undefined;
  /** Model requests of this turn (1 unless the service retried). */
  modelCalls: number | undefined;
  partFrames: number;
  /** Concatenated text of the text part frames. */
  partText: string | undefined;
  partProblems: string[];
  /** Database round trips the proxy counted from the POST to its response, and to the turn's end. */
  dbRoundTripsToAck: number | undefined;
  /** With --trace-model: round trips from the POST to the first model request's arrival at the tap. */
  dbRoundTripsToModel: number | undefined;
  dbRoundTripsToWaiting: number | undefined;
  /** Database connections opened in the same window. */
  dbConnections: number | undefined;
}

export interface ServiceTurnOptions {
  baseUrl: string;
  token: string;
  prompt: string;
  parts: boolean;
  /** Time the chat's second turn, after an untimed first one. */
  followUp: boolean;
  /** With followUp: the second turn is an edit of the first message, not a send. */
  edit: boolean;
  /** With followUp: the pause after the first turn, a user's reading and typing (at least AFTER_FIRST_TURN_MS). */
  thinkMs: number;
  /** Wait after sending the episode selection, so the object has it before the turn starts. */
  selectSettleMs: number;
  turnEnd: TurnEndWatcher;
  tap: ModelTap | undefined;
  timeoutMs: number;
  /** The stack's database proxy: its counters are reset at the POST and read at its response and the turn's end. */
  db?: Pick<WsProxy, "counters" | "resetCounters">;
}

interface ChatWire {
  id: string;
  status: string;
  snapshot_version: number;
}

export async function measureServiceTurn(opts: ServiceTurnOptions): Promise<ServiceTurnTiming> {
  const deadline = performance.now() + opts.timeoutMs;
  const api = apiClient(opts.baseUrl, opts.token, opts.timeoutMs);
  opts.db?.resetCounters();
  const createStarted = performance.now();
  const created = await api<ChatWire>("POST", "/api/v2/chats", { content: [] }, 201);
  const createMs = performance.now() - createStarted;
  const atCreate = opts.db?.counters();
  if (created.status !== "waiting") throw new Error(`a chat created empty should be waiting, got ${created.status}`);
  const { chat, firstMessageId } = opts.followUp
    ? await afterFirstTurn(api, opts, created.id, deadline)
    : { chat: created, firstMessageId: "" };
  const timed = opts.edit
    ? () => api("PATCH", `/api/v2/chats/${chat.id}/messages/${firstMessageId}`, { content: [{ type: "text", text: opts.prompt }] }, 200)
    : () => api("POST", `/api/v2/chats/${chat.id}/messages`, { content: [{ type: "text", text: opts.prompt }] }, 200);

  let socket: PartsSocket | undefined;
  try {
    if (opts.parts) {
      socket = await openPartsSocket({
        baseUrl: opts.baseUrl,
        chatId: chat.id,
        token: opts.token,
        episode: { history_version: chat.snapshot_version + 1, generation_attempt: 1 },
        timeoutMs: opts.timeoutMs,
      });
      await sleep(opts.selectSettleMs);
    }

    const devServerFloorMs = await devServerFloor(opts.baseUrl, opts.timeoutMs);
    // The floor's requests are logged through wrangler's Node process: let that settle first.
    await sleep(opts.selectSettleMs);
    opts.db?.resetCounters();
    const started = performance.now();
    await timed();
    const acked = performance.now();
    wireTraceFromEnv()?.mark("POST answered");
    const atAck = opts.db?.counters();

    const { doneAt, pollRttMs } = await opts.turnEnd.waitForWaiting(chat.id, deadline);
    const atWaiting = opts.db?.counters();
    // The status can commit while the last frames are still on their way (the relay lags under
    // load): collect until the socket has been quiet for a moment, so "last part" is the real last.
    if (socket) await quiet(socket, FRAMES_QUIET_MS, FRAMES_GRACE_MS);

    const frames: PartFrame[] = socket ? [...socket.frames] : [];
    const textFrames = frames.filter((f) => f.type === "text");
    const partProblems = socket ? [...socket.problems] : [];
    if (socket && frames.length === 0) partProblems.push("no part frame arrived before the turn ended");
    const calls = opts.tap?.callsSince(started);
    const call = calls?.[0];
    const since = (t: number | undefined) => (t === undefined ? undefined : t - started);
    return {
      chatId: chat.id,
      createMs,
      createRoundTrips: atCreate?.roundTrips,
      createConnections: atCreate?.connections,
      postAckMs: acked - started,
      devServerFloorMs,
      firstPartMs: frames[0] ? frames[0].at - started : undefined,
      firstTextMs: textFrames[0] ? textFrames[0].at - started : undefined,
      lastPartMs: frames.length > 0 ? frames[frames.length - 1]!.at - started : undefined,
      turnMs: doneAt - started,
      pollRttMs,
      modelRequestMs: since(call?.arrivedAt),
      modelFirstByteMs: since(call?.firstByteAt),
      modelLastByteMs: since(call?.lastByteAt),
      modelCalls: calls?.length,
      partFrames: frames.length,
      partText: socket ? textFrames.map((f) => f.text ?? "").join("") : undefined,
      partProblems,
      dbRoundTripsToAck: atAck?.roundTrips,
      dbRoundTripsToModel: call?.dbRoundTrips,
      dbRoundTripsToWaiting: atWaiting?.roundTrips,
      dbConnections: atWaiting?.connections,
    };
  } finally {
    socket?.close();
  }
}

/** The untimed first turn's prompt: short, so its history adds little to the timed turn's. */
const FIRST_TURN_PROMPT = "/slow 1 Hello there, this is the first turn.";
/** After the first turn: its title, written after the turn's end, is left time to land. */
const AFTER_FIRST_TURN_MS = 300;

export async function afterFirstTurn(
  api: Api,
  opts: Pick<ServiceTurnOptions, "turnEnd" | "thinkMs">,
  chatId: string,
  deadline: number,
): Promise<{ chat: ChatWire; firstMessageId: string }> {
  const sent = await api<{ message?: { id: string } }>(
    "POST",
    `/api/v2/chats/${chatId}/messages`,
    { content: [{ type: "text", text: FIRST_TURN_PROMPT }] },
    200,
  );
  if (!sent.message) throw new Error("the first turn's message was queued, not sent");
  await opts.turnEnd.waitForWaiting(chatId, deadline);
  await sleep(Math.max(AFTER_FIRST_TURN_MS, opts.thinkMs));
  const chat = await api<ChatWire>("GET", `/api/v2/chats/${chatId}`, undefined, 200);
  if (chat.status !== "waiting") throw new Error(`after its first turn the chat should be waiting, got ${chat.status}`);
  return { chat, firstMessageId: sent.message.id };
}

/** After the turn's end: frames are awaited until none came for `quietMs`, at most `graceMs`. */
const FRAMES_QUIET_MS = 150;
const FRAMES_GRACE_MS = 2_000;

async function quiet(socket: PartsSocket, quietMs: number, graceMs: number): Promise<void> {
  const until = performance.now() + graceMs;
  for (;;) {
    const last = socket.frames.at(-1)?.at ?? 0;
    const now = performance.now();
    if (now - last >= quietMs || now >= until) return;
    await sleep(Math.min(quietMs - (now - last), until - now));
  }
}

const FLOOR_REQUESTS = 3;

/**
 * What any request costs between this client and the Worker under `wrangler dev`, which puts a
 * proxy worker in a workerd of its own in front of the service (about 11 ms on this machine): the
 * median time of requests the Worker answers at once (401, no session), as the POST is sent.
 */
async function devServerFloor(baseUrl: string, timeoutMs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < FLOOR_REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/api/v2/chats`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    if (res.status !== 401) throw new Error(`GET /api/v2/chats without a session: HTTP ${res.status} (expected 401)`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(FLOOR_REQUESTS / 2)]!;
}

export type Api = <T = unknown>(method: string, path: string, body: unknown, expect: number) => Promise<T>;

export function apiClient(baseUrl: string, token: string, timeoutMs: number): Api {
  return async <T>(method: string, path: string, body: unknown, expect: number): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (res.status !== expect) throw new Error(`${method} ${path}: HTTP ${res.status} (expected ${expect}): ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
