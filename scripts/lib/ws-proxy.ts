/**
 * A WebSocket-to-TCP proxy that stands where Neon's proxy stands in production: the Neon
 * serverless driver opens `ws://HOST:PORT/v2?address=<pg-host>:<pg-port>` and speaks the
 * Postgres wire protocol in binary frames, which we pipe to a TCP socket and back.
 *
 * Only addresses on the allow-list are dialled, so the proxy cannot be used to reach anything
 * but the local database.
 *
 * For honest measurement at edge distances it can delay each direction (`latencyMs`, or the
 * CHATD_DB_LATENCY_MS environment variable through the stack), and it counts database round trips:
 * a client send after the server last answered starts one, however many messages it pipelines, so
 * the count is the number of waits on the database, independent of machine noise.
 */
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import { connect } from "node:net";
import type { WebSocket } from "ws";
import { log } from "./log";
import { type WireTrace, wireTraceFromEnv } from "./pg-wire-trace";

// Node's own resolution: the workerd test projects load their globalSetup (the stack) under the
// vitest plugin's "browser" export condition, where `ws` is a stub without a server.
const { WebSocketServer } = createRequire(import.meta.url)("ws") as typeof import("ws");

export interface WsProxy {
  port: number;
  /** The value for `neonConfig.wsProxy`-style settings: `127.0.0.1:<port>`. */
  hostPort: string;
  /** Open client connections, for tests and leak checks. */
  openConnections(): number;
  /**
   * Since the start (or the last reset): database round trips, connections opened, and the time
   * connections were held open, summed over connections, each from its opening to its Terminate
   * or its close (ms; an idle object's cost to a pooler).
   */
  counters(): { roundTrips: number; connections: number; connectionMs: number };
  resetCounters(): void;
  close(): Promise<void>;
}

export interface WsProxyOptions {
  port?: number;
  host?: string;
  /** `host:port` pairs that may be dialled. */
  allow: readonly string[];
  /** Delay added to each direction, in ms (0: none): a 20 ms one-way delay is a 40 ms round trip. */
  latencyMs?: number;
}

/** CHATD_DB_LATENCY_MS, validated: the one-way delay the stack's proxy adds. */
export function latencyFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CHATD_DB_LATENCY_MS;
  if (raw === undefined || raw === "") return 0;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > 10_000)
    throw new Error(`CHATD_DB_LATENCY_MS must be a whole number of ms in [0, 10000], got "${raw}"`);
  return ms;
}

export async function startWsProxy(opts: WsProxyOptions): Promise<WsProxy> {
  const host = opts.host ?? "127.0.0.1";
  const allow = new Set(opts.allow);
  const http: Server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required\n");
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();
  const counts = { roundTrips: 0, connections: 0 };
  const held = new HeldTime();
  const latencyMs = opts.latencyMs ?? 0;
  const trace = wireTraceFromEnv();
  let nextConn = 1;

  http.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const address = url.searchParams.get("address") ?? "";
    if (url.pathname !== "/v2" || !allow.has(address)) {
      log("warn", "ws_proxy_refused", { path: url.pathname, address });
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    counts.connections++;
    wss.handleUpgrade(req, socket, head, (ws) => pipe(ws, address, sockets, { latencyMs, counts, held, trace, conn: nextConn++ }));
  });

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, host, () => resolve());
  });
  const addr = http.address();
  if (!addr || typeof addr !== "object") throw new Error("ws proxy: no listening address");
  log("info", "ws_proxy_listening", { port: addr.port, allow: [...allow], latency_ms: latencyMs });

  return {
    port: addr.port,
    hostPort: `${host}:${addr.port}`,
    openConnections: () => sockets.size,
    counters: () => ({ ...counts, connectionMs: held.totalMs() }),
    resetCounters: () => {
      counts.roundTrips = 0;
      counts.connections = 0;
      held.reset();
      trace?.mark("counters reset");
    },
    close: async () => {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function pipe(
  ws: WebSocket,
  address: string,
  sockets: Set<WebSocket>,
  opts: { latencyMs: number; counts: { roundTrips: number }; held: HeldTime; trace: WireTrace | undefined; conn: number },
): void {
  const colon = address.lastIndexOf(":");
  const tcp = connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
  sockets.add(ws);
  opts.held.opened(ws);
  // Timers of equal delay fire in the order they were set, so a delayed direction keeps its order.
  const later = (fn: () => void) => (opts.latencyMs > 0 ? setTimeout(fn, opts.latencyMs) : fn());
  let awaitingAnswer = false;
  // Frames that arrive before the TCP connection is up are written once it is: net.Socket buffers.
  ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    // A Terminate ends the connection and waits for nothing: a pool closing an idle connection
    // inside a bench's window is not a round trip of the path it measures.
    const terminate = isTerminate(bytes);
    // The Postgres session ends here: held time stops, whenever the socket itself closes (local
    // workerd may leave a closed WebSocket's TCP connection up until the peer gives up on it).
    if (terminate) opts.held.closed(ws);
    const startsRoundTrip = !awaitingAnswer && !terminate;
    if (startsRoundTrip) {
      awaitingAnswer = true;
      opts.counts.roundTrips++;
    }
    opts.trace?.client(opts.conn, bytes, startsRoundTrip);
    later(() => {
      if (!tcp.destroyed) tcp.write(bytes);
    });
  });
  tcp.on("data", (chunk) => {
    if (awaitingAnswer) opts.trace?.answered(opts.conn);
    awaitingAnswer = false;
    later(() => {
      if (ws.readyState === ws.OPEN) ws.send(chunk, { binary: true });
    });
  });
  const close = () => {
    sockets.delete(ws);
    opts.held.closed(ws);
    tcp.destroy();
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
  };
  ws.on("close", close);
  ws.on("error", close);
  tcp.on("close", close);
  tcp.on("error", (err) => {
    log("warn", "ws_proxy_tcp_error", { address, error: err.message });
    close();
  });
}

/** How long connections were held open since the last reset, open ones counted up to now. */
class HeldTime {
  readonly #openedAt = new Map<object, number>();
  #closedMs = 0;
  #since = performance.now();

  opened(conn: object): void {
    this.#openedAt.set(conn, performance.now());
  }

  closed(conn: object): void {
    const at = this.#openedAt.get(conn);
    if (at === undefined) return;
    this.#openedAt.delete(conn);
    this.#closedMs += performance.now() - Math.max(at, this.#since);
  }

  totalMs(): number {
    const now = performance.now();
    let open = 0;
    for (const at of this.#openedAt.values()) open += now - Math.max(at, this.#since);
    return Math.round(this.#closedMs + open);
  }

  reset(): void {
    this.#closedMs = 0;
    this.#since = performance.now();
  }
}

/** Postgres's Terminate message ('X', length 4) alone. */
const isTerminate = (bytes: Buffer) => bytes.length === 5 && bytes[0] === 0x58 && bytes.readInt32BE(1) === 4;
