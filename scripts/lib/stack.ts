/**
 * The local stack every Node-side entry point needs: Postgres (embedded or DATABASE_URL),
 * migrations, the WebSocket proxy for the Neon driver, and the fake model server.
 * Started in order, stopped in reverse; a failure half-way stops what already started.
 */
import { startLocalPostgres, type LocalPostgres } from "./postgres";
import { runMigrations } from "./migrate";
import { latencyFromEnv, startWsProxy, type WsProxy } from "./ws-proxy";
import { startFakeModel } from "../fake-model/server";
import { log } from "./log";

export interface Stack {
  databaseUrl: string;
  /** `host:port` of the WebSocket proxy, for the Neon driver's local settings. */
  wsProxy: string;
  /**
   * NEON_PIPELINE_CONNECT for this Postgres: "password" for the embedded one (it asks for a
   * cleartext password, as Neon's proxy does, so a new connection costs one round trip as in
   * production); "off" for a DATABASE_URL, whose server may ask for SCRAM.
   */
  pipelineConnect: "password" | "off";
  /** Base URL of the fake model server (no trailing slash, no /v1). */
  fakeModelUrl: string;
  /** The database proxy's round-trip and connection counters (benches report them per path). */
  db: Pick<WsProxy, "counters" | "resetCounters">;
  stop(): Promise<void>;
}

export interface StackOptions {
  dataDir: string;
  database: string;
  databaseUrl?: string | undefined;
  fakeModelPort?: number;
  /** One-way delay of the database proxy (CHATD_DB_LATENCY_MS by default). */
  dbLatencyMs?: number;
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch((err) => log("warn", "stack_stop_failed", { error: String(err) }));
  };
  try {
    const pg: LocalPostgres = await startLocalPostgres({
      dataDir: opts.dataDir,
      database: opts.database,
      databaseUrl: opts.databaseUrl,
    });
    stops.push(pg.stop);
    await runMigrations(pg.url);
    const proxy: WsProxy = await startWsProxy({
      allow: [`${pg.host}:${pg.port}`, `localhost:${pg.port}`],
      latencyMs: opts.dbLatencyMs ?? latencyFromEnv(),
    });
    stops.push(proxy.close);
    const model = await startFakeModel({ port: opts.fakeModelPort ?? 0 });
    stops.push(model.close);
    const pipelineConnect = pg.embedded ? "password" : "off";
    return { databaseUrl: pg.url, wsProxy: proxy.hostPort, pipelineConnect, fakeModelUrl: model.url, db: proxy, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
