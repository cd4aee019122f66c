/**
 * The spec's "Concurrent agent limiter" pools and the advisory lock that serializes admission
 * against heartbeat renewal. Two pools: root chats (parent_chat_id IS NULL) and subagent chats.
 * Each pool has one deployment-wide transaction-scoped advisory lock; admission takes its chat's
 * pool lock exclusively, a heartbeat tick takes both in shared mode (root first, then subagent: one
 * fixed order, so an admission, which takes one, never waits in a cycle; ticks never wait for
 * each other, only for an admission in progress).
 *
 * The keys use the two-int4 form of pg_advisory_xact_lock with a namespace of their own, like
 * src/db/advisory-lock.ts does (which would be the natural home for the namespace; it is not
 * edited from here).
 */

export type PoolName = "root" | "subagent";

/** A deployment-wide limit per pool; 0 means unlimited ("Enterprise deployments can remove these limits"). */
export interface PoolLimits {
  readonly root: number;
  readonly subagent: number;
}

/** "up to five top-level chats and ten subagent chats at once" (spec defaults; wrangler.toml sets the vars). */
export const DEFAULT_POOL_LIMITS: PoolLimits = { root: 5, subagent: 10 };

/** "Admission waits at most 5 seconds for the lock." */
export const DEFAULT_ADMISSION_LOCK_TIMEOUT_MS = 5_000;

/** "adms": the admission locks' namespace (first int4 of the two-int key). */
export const ADMISSION_LOCK_NAMESPACE = 0x61646d73;

/** The second int4 of each pool's key. Ticks lock them in ascending order. */
export const ADMISSION_LOCK_KEYS: Readonly<Record<PoolName, number>> = { root: 1, subagent: 2 };

export function poolOf(chat: { readonly parentChatId: string | null }): PoolName {
  return chat.parentChatId === null ? "root" : "subagent";
}

/** lock_not_available (55P03): a lock wait exceeded lock_timeout. */
export function isLockTimeout(err: unknown): boolean {
  return pgCode(err) === "55P03";
}

/** query_canceled (57014): statement_timeout (or a cancel request) stopped a statement. */
export function isStatementTimeout(err: unknown): boolean {
  return pgCode(err) === "57014";
}

function pgCode(err: unknown): unknown {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") return code;
  const cause = (err as { cause?: unknown }).cause;
  return typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
}

/** A setting value for set_config: whole milliseconds, at least 1 (0 would mean "no timeout"). */
export function timeoutSetting(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`a timeout must be a positive number of milliseconds, got ${ms}`);
  return `${Math.max(1, Math.ceil(ms))}ms`;
}

export function assertLimits(limits: PoolLimits): void {
  for (const pool of ["root", "subagent"] as const) {
    const limit = limits[pool];
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError(`the ${pool} concurrency limit must be a whole number >= 0, got ${limit}`);
  }
}

export function assertThreshold(staleThresholdMs: number): void {
  if (!Number.isInteger(staleThresholdMs) || staleThresholdMs <= 0) {
    throw new RangeError(`staleThresholdMs must be a positive whole number, got ${staleThresholdMs}`);
  }
}
