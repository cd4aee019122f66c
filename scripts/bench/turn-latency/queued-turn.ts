/**
 * `--queued`: the turn a queued message starts. After an untimed first turn (so the chat's title
 * is written and no title call meets the timed ones at the model), the bench sends the prompt and,
 * while its turn runs, a second message that the chat queues. When the first turn ends, its commit
 * promotes the queued message and the runner starts its turn. Timed, through the model tap: the
 * first call's last byte → the second call's arrival, and the database round trips between them.
 */
import type { WsProxy } from "../../lib/ws-proxy";
import type { ModelTap } from "./model-tap";
import { afterFirstTurn, apiClient } from "./service-turn";
import type { TurnEndWatcher } from "./turn-end";

export interface QueuedTurnTiming {
  chatId: string;
  /** The first model call's last byte → the queued message's model call. */
  gapMs: number;
  /** Database round trips in the same window. */
  roundTrips: number | undefined;
}

export interface QueuedTurnOptions {
  baseUrl: string;
  token: string;
  prompt: string;
  turnEnd: TurnEndWatcher;
  tap: ModelTap;
  timeoutMs: number;
  db: Pick<WsProxy, "resetCounters">;
}

/** Short, so the queued turn adds little to the rep. */
const QUEUED_PROMPT = "/slow 1 And this one waited in the queue.";

export async function measureQueuedTurn(opts: QueuedTurnOptions): Promise<QueuedTurnTiming> {
  const deadline = performance.now() + opts.timeoutMs;
  const api = apiClient(opts.baseUrl, opts.token, opts.timeoutMs);
  const created = await api<{ id: string }>("POST", "/api/v2/chats", { content: [] }, 201);
  await afterFirstTurn(api, { turnEnd: opts.turnEnd, thinkMs: 0 }, created.id, deadline);
  const messages = `/api/v2/chats/${created.id}/messages`;
  opts.db.resetCounters();
  const started = performance.now();
  const first = await api<{ queued: boolean }>("POST", messages, { content: [{ type: "text", text: opts.prompt }] }, 200);
  if (first.queued) throw new Error("the first message was queued: the chat was not idle");
  const second = await api<{ queued: boolean }>("POST", messages, { content: [{ type: "text", text: QUEUED_PROMPT }] }, 200);
  if (!second.queued) throw new Error("the second message was not queued: the first turn ended before it was sent (use a longer --prompt)");
  await opts.turnEnd.waitForWaiting(created.id, deadline);
  const calls = opts.tap.callsSince(started);
  const [a, b] = calls;
  if (calls.length !== 2 || a?.lastByteAt === undefined || b === undefined)
    throw new Error(`expected two model calls (the turn, then the queued message's), saw ${calls.length}`);
  const roundTrips =
    a.dbRoundTripsAtLastByte === undefined || b.dbRoundTrips === undefined ? undefined : b.dbRoundTrips - a.dbRoundTripsAtLastByte;
  return { chatId: created.id, gapMs: b.arrivedAt - a.lastByteAt, roundTrips };
}
