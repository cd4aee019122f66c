/**
 * Sign-in sessions (docs/accounts.md): an email and password give a session, which is an API key
 * like any token (so the Worker and the chat objects authenticate it the same way) named
 * SESSION_TOKEN_NAME, renewed by each use within the deployment's bounds (api-keys.ts
 * touchApiKey). Signing out deletes it, and with it every token it minted.
 */
import type { Config } from "../config/env";
import type { Database } from "../db/database";
import { type ApiKeyRow, createApiKey, deleteApiKey, SESSION_TOKEN_NAME, type SessionLifetime } from "./api-keys";
import { SignInRefusedError } from "./errors";
import { hashPassword, iterationsOf, verifyPassword } from "./password";
import { assertNotLocked, forgetFailures, recordFailure, signInSubjects } from "./sign-in-throttle";
import { findUserByEmail, setPassword } from "./users";

/** The deployment's session bounds. */
export function sessionLifetime(config: Pick<Config, "CHAT_SESSION_IDLE_SECONDS" | "CHAT_SESSION_MAX_SECONDS">): SessionLifetime {
  return { idleMs: config.CHAT_SESSION_IDLE_SECONDS * 1000, maxMs: config.CHAT_SESSION_MAX_SECONDS * 1000 };
}

export interface SignIn {
  email: string;
  password: string;
  /** The client's address, when the platform names it (CF-Connecting-IP). */
  address: string | undefined;
}

/**
 * A wrong password costs what a right one does: a missing user (or one without a password) is
 * checked against this hash, so the answer's timing does not tell which accounts exist.
 */
let decoyHash: Promise<string> | undefined;

/**
 * The session for `email` and `password`; SignInRefusedError (401) for any mismatch, a suspended
 * user or one without a password, TooManySignInAttemptsError (429) while the account or address is
 * locked (sign-in-throttle.ts). Each refusal counts for both.
 */
/** The settings a sign-in follows. */
export type SignInConfig = Pick<
  Config,
  | "CHAT_SESSION_IDLE_SECONDS"
  | "CHAT_SESSION_MAX_SECONDS"
  | "CHAT_SIGN_IN_MAX_FAILURES"
  | "CHAT_SIGN_IN_LOCKOUT_SECONDS"
  | "CHAT_PASSWORD_HASH_ITERATIONS"
>;

export async function signIn(db: Database, input: SignIn, now: Date, config: SignInConfig): Promise<{ key: ApiKeyRow; token: string }> {
  const email = input.email.toLowerCase();
  const subjects = signInSubjects(email, input.address);
  await assertNotLocked(db, subjects, now);
  const user = await findUserByEmail(db, email);
  decoyHash ??= hashPassword("chatd-edge decoy password");
  const matches = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
  if (!user || user.passwordHash === null || user.suspended || !matches) {
    await recordFailure(db, subjects, now, {
      maxFailures: config.CHAT_SIGN_IN_MAX_FAILURES,
      lockoutSeconds: config.CHAT_SIGN_IN_LOCKOUT_SECONDS,
    });
    throw new SignInRefusedError();
  }
  await forgetFailures(db, subjects[0]!);
  // A password stored at another cost is hashed again at the configured one, now that we hold it.
  if (iterationsOf(user.passwordHash) !== config.CHAT_PASSWORD_HASH_ITERATIONS)
    await setPassword(db, user.id, input.password, config.CHAT_PASSWORD_HASH_ITERATIONS);
  return startSession(db, user, now, config);
}

/** A new session for `user` (a password sign-in's, or single sign-on's): idle this long it expires. */
export function startSession(
  db: Database,
  user: { id: string; loginType: string },
  now: Date,
  config: Pick<Config, "CHAT_SESSION_IDLE_SECONDS" | "CHAT_SESSION_MAX_SECONDS">,
): Promise<{ key: ApiKeyRow; token: string }> {
  return createApiKey(db, {
    userId: user.id,
    tokenName: SESSION_TOKEN_NAME,
    loginType: user.loginType,
    expiresAt: new Date(now.getTime() + sessionLifetime(config).idleMs),
  });
}

/** Ends the session (or token) the caller authenticated with; the tokens it minted end with it. */
export async function signOut(db: Database, caller: { userId: string; apiKeyId: string }): Promise<void> {
  await deleteApiKey(db, caller.userId, caller.apiKeyId);
}
