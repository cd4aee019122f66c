/**
 * A WebSocket-to-TCP proxy that stands where Neon's proxy stands in production: the Neon
 * serverless driver opens `ws://HOST:PORT/v2?address=<pg-host>:<pg-port>` and speaks the
 * Postgres wire protocol in binary frames, which we pipe to a TCP socket and back.
 *
 * Only addresses on the allow-list are dialled, so the proxy cannot be used to reach anything
 * but the local database.
 */
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { log } from "./log";

export interface WsProxy {
  port: number;
  /** The value for `neonConfig.wsProxy`-style settings: `127.0.0.1:<port>`. */
  hostPort: string;
  /** Open client connections, for tests and leak checks. */
  openConnections(): number;
  close(): Promise<void>;
}

export interface WsProxyOptions {
  port?: number;
  host?: string;
  /** `host:port` pairs that may be dialled. */
  allow: readonly string[];
}

export async function startWsProxy(opts: WsProxyOptions): Promise<WsProxy> {
  const host = opts.host ?? "127.0.0.1";
  const allow = new Set(opts.allow);
  const http: Server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required\n");
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();

  http.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const address = url.searchParams.get("address") ?? "";
    if (url.pathname !== "/v2" || !allow.has(address)) {
      log("warn", "ws_proxy_refused", { path: url.pathname, address });
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => pipe(ws, address, sockets));
  });

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, host, () => resolve());
  });
  const addr = http.address();
  if (!addr || typeof addr !== "object") throw new Error("ws proxy: no listening address");
  log("info", "ws_proxy_listening", { port: addr.port, allow: [...allow] });

  return {
    port: addr.port,
    hostPort: `${host}:${addr.port}`,
    openConnections: () => sockets.size,
    close: async () => {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function pipe(ws: WebSocket, address: string, sockets: Set<WebSocket>): void {
  const colon = address.lastIndexOf(":");
  const tcp = connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
  sockets.add(ws);
  // Frames that arrive before the TCP connection is up are written once it is: net.Socket buffers.
  ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
    tcp.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
  });
  tcp.on("data", (chunk) => {
    if (ws.readyState === ws.OPEN) ws.send(chunk, { binary: true });
  });
  const close = () => {
    sockets.delete(ws);
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
