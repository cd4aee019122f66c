/**
 * A TCP proxy in front of Postgres that counts what scripts/lib/ws-proxy.ts counts for the Neon
 * driver, for drivers that speak the wire protocol over TCP (node-postgres on a Hyperdrive binding
 * under `wrangler dev`): a client send after the server last answered starts a round trip,
 * however many messages it carries. It adds the same one-way delay in each direction.
 *
 * It also tells connection setup from queries: round trips before a connection's first
 * ReadyForQuery (startup, the password exchange) are `connectRoundTrips`. With Hyperdrive in
 * production those end at Hyperdrive's edge near the Worker, which holds warm connections to the
 * database, so they do not cross the distance this proxy's delay stands for; the others do (unless
 * a cached config answers them).
 */
import { createServer, type Server, type Socket, connect } from "node:net";
import { log } from "./log";

export interface PgTcpCounters {
  /** Waits on the database, connection setup included. */
  roundTrips: number;
  /** Of those, the ones before a connection's first ReadyForQuery. */
  connectRoundTrips: number;
  connections: number;
}

export interface PgTcpProxy {
  port: number;
  /** `postgres://…` of the target with this proxy's host and port in its place. */
  urlFor(targetUrl: string): string;
  counters(): PgTcpCounters;
  resetCounters(): void;
  openConnections(): number;
  close(): Promise<void>;
}

export interface PgTcpProxyOptions {
  /** Postgres to forward to. */
  target: { host: string; port: number };
  /** Delay added to each direction, in ms (0: none). */
  latencyMs?: number;
}

export async function startPgTcpProxy(opts: PgTcpProxyOptions): Promise<PgTcpProxy> {
  const latencyMs = opts.latencyMs ?? 0;
  const counts: PgTcpCounters = { roundTrips: 0, connectRoundTrips: 0, connections: 0 };
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    counts.connections++;
    pipe(client, connect(opts.target), { latencyMs, counts, open });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("pg tcp proxy: no listening address");
  log("info", "pg_tcp_proxy_listening", { port: address.port, target: `${opts.target.host}:${opts.target.port}`, latency_ms: latencyMs });
  return {
    port: address.port,
    urlFor(targetUrl) {
      const url = new URL(targetUrl);
      url.hostname = "127.0.0.1";
      url.port = String(address.port);
      return url.toString();
    },
    counters: () => ({ ...counts }),
    resetCounters: () => {
      counts.roundTrips = 0;
      counts.connectRoundTrips = 0;
      counts.connections = 0;
    },
    openConnections: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function pipe(client: Socket, upstream: Socket, opts: { latencyMs: number; counts: PgTcpCounters; open: Set<Socket> }): void {
  // Timers of equal delay fire in the order they were set, so each direction keeps its order.
  const later = (fn: () => void) => (opts.latencyMs > 0 ? setTimeout(fn, opts.latencyMs) : fn());
  const ready = new ReadyForQueryWatch();
  // No Nagle: a small write held back for an ACK would add a stall the WebSocket path (which
  // sets TCP_NODELAY) never pays, and be counted against the driver.
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  let awaitingAnswer = false;
  opts.open.add(client);
  client.on("data", (bytes) => {
    // A Terminate waits for nothing: a pool closing a connection is not a round trip.
    if (!awaitingAnswer && !isTerminate(bytes)) {
      awaitingAnswer = true;
      opts.counts.roundTrips++;
      if (!ready.seen) opts.counts.connectRoundTrips++;
    }
    later(() => {
      if (!upstream.destroyed) upstream.write(bytes);
    });
  });
  upstream.on("data", (chunk) => {
    awaitingAnswer = false;
    ready.feed(chunk);
    later(() => {
      if (!client.destroyed) client.write(chunk);
    });
  });
  const close = () => {
    opts.open.delete(client);
    // After the delay, so an answer still on its way is delivered before the close.
    later(() => {
      client.destroy();
      upstream.destroy();
    });
  };
  client.on("close", close);
  upstream.on("close", close);
  client.on("error", close);
  upstream.on("error", (err) => {
    log("warn", "pg_tcp_proxy_upstream_error", { error: err.message });
    close();
  });
}

/**
 * Follows the server's message framing (a type byte, then an int32 length that counts itself)
 * until the first ReadyForQuery ('Z'): the end of connection setup.
 */
class ReadyForQueryWatch {
  seen = false;
  #pending = Buffer.alloc(0);

  feed(chunk: Buffer): void {
    if (this.seen) return;
    let buf = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (buf.length >= 5) {
      const length = buf.readInt32BE(1);
      if (buf.length < 1 + length) break;
      if (buf[0] === 0x5a) {
        this.seen = true;
        this.#pending = Buffer.alloc(0);
        return;
      }
      buf = buf.subarray(1 + length);
    }
    this.#pending = Buffer.from(buf);
  }
}

/** Postgres's Terminate message ('X', length 4) alone. */
const isTerminate = (bytes: Buffer) => bytes.length === 5 && bytes[0] === 0x58 && bytes.readInt32BE(1) === 4;
