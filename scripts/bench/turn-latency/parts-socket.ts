/**
 * A client of `GET /api/v2/chats/{id}/stream/parts`: selects one episode and records the receipt
 * time of every frame. The selection is sent before the turn starts; the server waits for the
 * episode, so the first frame's receipt is "the first part leaving the object" plus loopback.
 */
import WebSocket from "ws";

export interface EpisodeKey {
  history_version: number;
  generation_attempt: number;
}

export interface PartFrame {
  /** performance.now() at receipt. */
  at: number;
  seq: number;
  type: string;
  text: string | undefined;
}

export interface PartsSocket {
  frames: PartFrame[];
  /** Frames that did not match the selected episode or broke seq order (a bug if not empty). */
  problems: string[];
  /** Resolves at the first frame; rejects if the socket closes or fails before one. */
  firstFrame: Promise<PartFrame>;
  close(): void;
}

export async function openPartsSocket(opts: {
  baseUrl: string;
  chatId: string;
  token: string;
  episode: EpisodeKey;
  timeoutMs: number;
}): Promise<PartsSocket> {
  const url = new URL(`${opts.baseUrl.replace(/^http/, "ws")}/api/v2/chats/${opts.chatId}/stream/parts`);
  url.searchParams.set("coder_session_token", opts.token);
  // Browsers offer permessage-deflate; left off here so the Node client's inflate costs nothing.
  const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: opts.timeoutMs });
  const frames: PartFrame[] = [];
  const problems: string[] = [];
  let resolveFirst!: (frame: PartFrame) => void;
  let rejectFirst!: (err: Error) => void;
  const firstFrame = new Promise<PartFrame>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  // A turn may legitimately end without anyone awaiting firstFrame (a failed rep); never unhandled.
  firstFrame.catch(() => {});

  ws.on("message", (data, isBinary) => {
    const at = performance.now();
    if (isBinary) {
      problems.push("binary frame");
      return;
    }
    let frame: { history_version?: unknown; generation_attempt?: unknown; seq?: unknown; part?: { type?: unknown; text?: unknown } };
    try {
      frame = JSON.parse(String(data));
    } catch {
      problems.push(`not JSON: ${String(data).slice(0, 80)}`);
      return;
    }
    if (frame.history_version !== opts.episode.history_version || frame.generation_attempt !== opts.episode.generation_attempt) {
      problems.push(`frame of another episode: ${JSON.stringify(frame).slice(0, 120)}`);
      return;
    }
    const seq = Number(frame.seq);
    if (seq !== frames.length + 1) problems.push(`seq ${seq} after ${frames.length}`);
    const part: PartFrame = {
      at,
      seq,
      type: String(frame.part?.type),
      text: typeof frame.part?.text === "string" ? frame.part.text : undefined,
    };
    frames.push(part);
    if (frames.length === 1) resolveFirst(part);
  });
  ws.on("close", (code, reason) => rejectFirst(new Error(`parts socket closed (${code} ${String(reason)}) before the first frame`)));
  ws.on("error", (err) => rejectFirst(err));

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`parts socket did not open within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    ws.once("open", () => {
      clearTimeout(timer);
      resolve();
    });
    ws.once("unexpected-response", (_req, res) => {
      clearTimeout(timer);
      reject(new Error(`parts socket upgrade refused: HTTP ${res.statusCode}`));
    });
    ws.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  }).catch((err) => {
    ws.terminate();
    throw err;
  });
  ws.send(JSON.stringify(opts.episode));
  return {
    frames,
    problems,
    firstFrame,
    close: () => {
      ws.removeAllListeners("close");
      ws.terminate();
    },
  };
}
