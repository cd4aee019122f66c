/**
 * Versions and machine facts for a bench's report and its JSON file, taken at its start: Node, the
 * cores and the load, the versions of `packages` (from the root's node_modules), the commit, and
 * whether there are uncommitted changes: to `snapshotPaths` (`worktree_dirty`: what a session bench
 * serves, which runs HEAD's unless --worktree), or anywhere (`dirty`) when none are named.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { ROOT_DIR } from "../../lib/paths";

export function environment(packages: readonly string[], snapshotPaths?: readonly string[]): Record<string, unknown> {
  const version = (pkg: string) => {
    try {
      return (JSON.parse(readFileSync(`${ROOT_DIR}node_modules/${pkg}/package.json`, "utf8")) as { version: string }).version;
    } catch {
      return undefined;
    }
  };
  const git = (...args: string[]) => {
    try {
      return execFileSync("git", args, { cwd: ROOT_DIR, stdio: ["ignore", "pipe", "ignore"] })
        .toString()
        .trim();
    } catch {
      return undefined;
    }
  };
  return {
    node: process.version,
    cpus: availableParallelism(),
    cpu_model: cpus()[0]?.model,
    loadavg_at_start: loadavg().map((v) => Math.round(v * 100) / 100),
    ...Object.fromEntries(packages.map((pkg) => [pkg, version(pkg)])),
    commit: git("rev-parse", "--short", "HEAD"),
    ...(snapshotPaths
      ? { worktree_dirty: git("status", "--porcelain", "--", ...snapshotPaths) !== "" }
      : { dirty: git("status", "--porcelain") !== "" }),
  };
}
