/**
 * `--trace-model`: a pass-through HTTP proxy between the service and the fake model that stamps
 * when each model request arrives and when its response's first and last bytes go back. It splits
 * the service's first-part time into "before the model is called" and "after", at the cost of one
 * more loopback hop on the service's side only (the baseline still calls the model directly), so
 * it is off by default.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { wireTraceFromEnv } from "../../lib/pg-wire-trace";

export interface ModelCall {
  /** performance.now() stamps. */
  arrivedAt: number;
  firstByteAt: number | undefined;
  lastByteAt: number | undefined;
  /** The database proxy's round trips (since its last reset) when the request arrived, with `dbRoundTrips` given. */
  dbRoundTrips: number | undefined;
  /** The same counter when the response's last byte went back. */
  dbRoundTripsAtLastByte: number | undefined;
}

export interface ModelTap {
  /** Base URL to give the service instead of the fake model's (no /v1). */
  url: string;
  /** Calls that arrived at or after `since`, oldest first. */
  callsSince(since: number): ModelCall[];
  close(): Promise<void>;
}

const MAX_CALLS = 10_000;

export interface ModelTapOptions {
  /** Read when a request arrives: the database proxy's round-trip counter (bench:turn resets it at the POST). */
  dbRoundTrips?: () => number;
}

export async function startModelTap(targetUrl: string, opts: ModelTapOptions = {}): Promise<ModelTap> {
  const target = new URL(targetUrl);
  const calls: ModelCall[] = [];
  const server: Server = createServer((req, res) => {
    const call: ModelCall = {
      arrivedAt: performance.now(),
      firstByteAt: undefined,
      lastByteAt: undefined,
      dbRoundTrips: opts.dbRoundTrips?.(),
      dbRoundTripsAtLastByte: undefined,
    };
    if (calls.length < MAX_CALLS) calls.push(call);
    wireTraceFromEnv()?.mark(`model request ${req.method} ${req.url}`);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.on("data", (chunk: Buffer) => {
          call.firstByteAt ??= performance.now();
          res.write(chunk);
        });
        up.on("end", () => {
          call.lastByteAt = performance.now();
          call.dbRoundTripsAtLastByte = opts.dbRoundTrips?.();
          res.end();
        });
        up.on("error", () => res.destroy());
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    callsSince: (since) => calls.filter((c) => c.arrivedAt >= since),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
