/**
 * A TCP proxy a test controls: `dropAll()` cuts every open connection as a network failure
 * would (no close frame), so a client's reconnect can be tested against a server that keeps
 * running.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  dropAll(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted += 1;
    const upstream = createConnection({ host: hostname, port: Number(port) });
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.pipe(b);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        open.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    accepted: () => accepted,
    dropAll: () => {
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
