/**
 * One turn of the bare reference worker (bare/worker.js) under its own `wrangler dev`: a socket on
 * a fresh room, then POST the prompt and time its response, the first delta frame and the done
 * frame, as measureServiceTurn times chatd's POST, first part and `waiting`. With `followUp`, the
 * room first runs an untimed turn and waits `thinkMs`, as chatd's chat does (a warm object).
 */
import WebSocket from "ws";

export interface BareTurnTiming {
  /** POST start → its response (the object answers before it calls the model). */
  postAckMs: number;
  /** POST start → the first delta frame at the client. */
  firstPartMs: number | undefined;
  /** POST start → the done frame at the client: the turn's end. */
  turnMs: number;
  deltas: number;
  text: string;
}

export interface BareTurnOptions {
  baseUrl: string;
  prompt: string;
  parts: boolean;
  followUp: boolean;
  thinkMs: number;
  selectSettleMs: number;
  timeoutMs: number;
}

const FIRST_TURN_PROMPT = "/slow 1 Hello there, this is the first turn.";
let rooms = 0;

export async function measureBareTurn(opts: BareTurnOptions): Promise<BareTurnTiming> {
  const room = `r${process.pid}-${Date.now().toString(36)}-${++rooms}`;
  const socket = await openRoomSocket(opts.baseUrl, room, opts.timeoutMs);
  try {
    if (opts.followUp) {
      const first = socket.nextTurn();
      await post(opts.baseUrl, room, FIRST_TURN_PROMPT, opts.timeoutMs);
      await withTimeout(first.done, opts.timeoutMs, "the bare room's first turn");
      await sleep(opts.thinkMs);
    } else {
      await sleep(opts.selectSettleMs);
    }
    const turn = socket.nextTurn();
    const started = performance.now();
    await post(opts.baseUrl, room, opts.prompt, opts.timeoutMs);
    const acked = performance.now();
    const end = await withTimeout(turn.done, opts.timeoutMs, "the bare turn");
    return {
      postAckMs: acked - started,
      firstPartMs: opts.parts && turn.firstAt !== undefined ? turn.firstAt - started : undefined,
      turnMs: end - started,
      deltas: turn.deltas,
      text: turn.text,
    };
  } finally {
    socket.close();
  }
}

interface TurnFrames {
  firstAt: number | undefined;
  deltas: number;
  text: string;
  /** Resolves with the done frame's receipt time; rejects on an error frame. */
  done: Promise<number>;
}

async function openRoomSocket(baseUrl: string, room: string, timeoutMs: number) {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/bare/${room}/ws`, { perMessageDeflate: false, handshakeTimeout: timeoutMs });
  let current: (TurnFrames & { resolve(at: number): void; reject(err: Error): void }) | undefined;
  ws.on("message", (data) => {
    const at = performance.now();
    const turn = current;
    if (!turn) return;
    const frame = JSON.parse(String(data)) as { seq?: number; text?: string; done?: boolean; error?: string };
    if (frame.error !== undefined) turn.reject(new Error(`bare turn failed: ${frame.error}`));
    else if (frame.done) turn.resolve(at);
    else {
      turn.firstAt ??= at;
      turn.deltas += 1;
      turn.text += frame.text ?? "";
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`bare socket upgrade refused: HTTP ${res.statusCode}`)));
  });
  return {
    nextTurn(): TurnFrames {
      let resolve!: (at: number) => void;
      let reject!: (err: Error) => void;
      const done = new Promise<number>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      done.catch(() => {});
      current = { firstAt: undefined, deltas: 0, text: "", done, resolve, reject };
      return current;
    },
    close: () => ws.terminate(),
  };
}

async function post(baseUrl: string, room: string, prompt: string, timeoutMs: number): Promise<void> {
  // chatd's message body, so both POSTs carry the same bytes.
  const res = await fetch(`${baseUrl}/bare/${room}/turn`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content: [{ type: "text", text: prompt }] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`bare POST: HTTP ${res.status}`);
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
