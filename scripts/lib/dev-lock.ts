/**
 * One `npm run dev` per data folder. A second one would find the first one's Postgres on the data
 * directory, take it for a leftover of a killed run and stop it, leaving the first service
 * answering 500. So the dev command holds a lock file (its pid and URL) while it runs: a second
 * run refuses to start and says where the running one is. A lock whose process is gone (a killed
 * run) is taken over.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";

export class DevAlreadyRunningError extends Error {
  override name = "DevAlreadyRunningError";
  constructor(
    readonly pid: number,
    readonly url: string | undefined,
    lockFile: string,
  ) {
    super(
      `npm run dev is already running in this checkout (pid ${pid}${url ? `, ${url}` : ""}). ` +
        `Stop it first (Ctrl-C in its terminal, or kill ${pid}), or give this run its own data folder with CHATD_DATA_DIR. ` +
        `Lock file: ${lockFile}`,
    );
  }
}

interface LockContents {
  pid: number;
  url?: string;
}

export interface DevLock {
  /** Records where the service listens, for the message a second run prints. */
  setUrl(url: string): void;
  release(): void;
}

export function acquireDevLock(lockFile: string): DevLock {
  for (let tries = 0; ; tries++) {
    try {
      const fd = openSync(lockFile, "wx");
      writeSync(fd, JSON.stringify({ pid: process.pid } satisfies LockContents));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || tries > 0) throw err;
      const holder = readLock(lockFile);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) throw new DevAlreadyRunningError(holder.pid, holder.url, lockFile);
      rmSync(lockFile, { force: true }); // a killed run's lock
    }
  }
  return {
    setUrl(url) {
      const current = readLock(lockFile);
      if (current?.pid === process.pid) writeLock(lockFile, { pid: process.pid, url });
    },
    release() {
      if (readLock(lockFile)?.pid === process.pid) rmSync(lockFile, { force: true });
    },
  };
}

function readLock(lockFile: string): LockContents | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockFile, "utf8")) as Partial<LockContents>;
    return typeof parsed.pid === "number" ? { pid: parsed.pid, ...(typeof parsed.url === "string" ? { url: parsed.url } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

function writeLock(lockFile: string, contents: LockContents): void {
  const fd = openSync(lockFile, "w");
  writeSync(fd, JSON.stringify(contents));
  closeSync(fd);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, owned by someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
