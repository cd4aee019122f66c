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
import type { Config } from "../../config/env";

export type PoolName = "root" | "subagent";

/** A deployment-wide limit per pool; 0 means unlimited ("Enterprise deployments can remove these limits"). */
export interface PoolLimits {
  readonly root: number;
  readonly subagent: number;
}

/** "up to five top-level chats and ten subagent chats at once" (spec defaults; wrangler.toml sets the vars). */
export const DEFAULT_POOL_LIMITS: PoolLimits = { root: 5, subagent: 10 };

/**
 * Fair admission inside the pools: the most slots of each pool one user, and one organization,
 * may hold at once (0: no share). A tenant at its share waits as a full pool's chats do, and the
 * pool's other slots stay free for everyone else.
 */
export interface TenantShares {
  readonly perUser: PoolLimits;
  readonly perOrganization: PoolLimits;
}

export const NO_SHARES: TenantShares = { perUser: { root: 0, subagent: 0 }, perOrganization: { root: 0, subagent: 0 } };

type ShareConfig = Pick<
  Config,
  | "CHAT_ROOT_CONCURRENCY_PER_USER"
  | "CHAT_SUBAGENT_CONCURRENCY_PER_USER"
  | "CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION"
  | "CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION"
>;

export function tenantShares(config: ShareConfig): TenantShares {
  return {
    perUser: { root: config.CHAT_ROOT_CONCURRENCY_PER_USER, subagent: config.CHAT_SUBAGENT_CONCURRENCY_PER_USER },
    perOrganization: { root: config.CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION, subagent: config.CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION },
  };
}

/** One pool's admission: its deployment-wide slots and the shares; 0 is none. */
export interface PoolAdmission {
  readonly slots: number;
  readonly perUser: number;
  readonly perOrganization: number;
}

export function poolAdmission(limits: PoolLimits, shares: TenantShares, pool: PoolName): PoolAdmission {
  return { slots: limits[pool], perUser: shares.perUser[pool], perOrganization: shares.perOrganization[pool] };
}

/** Whether admission to the pool counts anything (and so takes the pool's lock). */
export function isLimited(admission: PoolAdmission): boolean {
  return admission.slots > 0 || admission.perUser > 0 || admission.perOrganization > 0;
}

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

export function assertLimits(limits: PoolLimits, what = "concurrency limit"): void {
  for (const pool of ["root", "subagent"] as const) {
    const limit = limits[pool];
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`the ${pool} ${what} must be a whole number >= 0, got ${limit}`);
  }
}

export function assertShares(shares: TenantShares): void {
  assertLimits(shares.perUser, "share per user");
  assertLimits(shares.perOrganization, "share per organization");
}

export function assertThreshold(staleThresholdMs: number): void {
  if (!Number.isInteger(staleThresholdMs) || staleThresholdMs <= 0) {
    throw new RangeError(`staleThresholdMs must be a positive whole number, got ${staleThresholdMs}`);
  }
}
