/**
 * Failed sign-ins slow the next ones, per account and per address: after `maxFailures` failures
 * within FAILURE_WINDOW_MS a subject is locked for `lockoutSeconds`, doubling with each further
 * failure up to MAX_LOCKOUT_MS. A locked subject's attempts are refused before the password is
 * checked, so guessing costs the wait, and an account is never locked longer than the cap. A
 * success forgets the account's failures; the address's stay (one address trying many accounts is
 * what the address count is for).
 */
import { and, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { signInFailures } from "../db/schema/auth";
import { TooManySignInAttemptsError } from "./errors";

/** Failures older than this no longer count. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** The longest a subject is locked, however many failures it has. */
export const MAX_LOCKOUT_MS = 15 * 60_000;

export interface SignInThrottleOptions {
  maxFailures: number;
  lockoutSeconds: number;
}

/** The subjects of a sign-in: its account (by email) and, when known, the address it came from. */
export function signInSubjects(email: string, address: string | undefined): string[] {
  return [`account:${email.toLowerCase()}`, ...(address ? [`address:${address}`] : [])];
}

/** Refuses (TooManySignInAttemptsError) while any subject is locked. */
export async function assertNotLocked(db: Database, subjects: readonly string[], now: Date): Promise<void> {
  const [row] = await db
    .select({ lockedUntil: sql<string | null>`max(${signInFailures.lockedUntil})` })
    .from(signInFailures)
    .where(and(inArray(signInFailures.subject, [...subjects]), gt(signInFailures.lockedUntil, now)));
  if (!row?.lockedUntil) return;
  const waitMs = new Date(row.lockedUntil).getTime() - now.getTime();
  throw new TooManySignInAttemptsError(Math.max(1, Math.ceil(waitMs / 1000)));
}

/**
 * Counts a failure for each subject, one statement each, in the order given: a subject past its
 * window starts again at one; from `maxFailures` on it is locked.
 */
export async function recordFailure(db: Database, subjects: readonly string[], now: Date, options: SignInThrottleOptions): Promise<void> {
  const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MS);
  const failures = sql`CASE WHEN ${signInFailures.firstFailedAt} < ${windowStart} THEN 1 ELSE ${signInFailures.failures} + 1 END`;
  const lockMs = sql`least(${MAX_LOCKOUT_MS}::float8, ${options.lockoutSeconds * 1000}::float8 * power(2, (${failures}) - ${options.maxFailures}))`;
  for (const subject of subjects) {
    const lockedAtOnce = options.maxFailures <= 1 ? new Date(now.getTime() + options.lockoutSeconds * 1000) : null;
    await db
      .insert(signInFailures)
      .values({ subject, failures: 1, firstFailedAt: now, lockedUntil: lockedAtOnce })
      .onConflictDoUpdate({
        target: signInFailures.subject,
        set: {
          failures,
          firstFailedAt: sql`CASE WHEN ${signInFailures.firstFailedAt} < ${windowStart} THEN ${now} ELSE ${signInFailures.firstFailedAt} END`,
          lockedUntil: sql`CASE WHEN (${failures}) >= ${options.maxFailures}
            THEN ${now}::timestamptz + make_interval(secs => (${lockMs}) / 1000) ELSE NULL END`,
        },
      });
  }
}

/** A successful sign-in forgets the account's failures. */
export async function forgetFailures(db: Database, subject: string): Promise<void> {
  await db.delete(signInFailures).where(eq(signInFailures.subject, subject));
}

/** Rows whose window and lock have both passed (the purge's; they count for nothing). */
export async function purgeStaleFailures(db: Database, now: Date): Promise<number> {
  const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MS);
  const deleted = await db
    .delete(signInFailures)
    .where(
      and(
        lt(signInFailures.firstFailedAt, windowStart),
        sql`(${signInFailures.lockedUntil} IS NULL OR ${signInFailures.lockedUntil} < ${now})`,
      ),
    )
    .returning({ subject: signInFailures.subject });
  return deleted.length;
}
