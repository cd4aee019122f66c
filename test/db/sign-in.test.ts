/**
 * Sign-in against a real Postgres: sessions and their renewal, tokens minted by tokens, and the
 * throttle on failed sign-ins (per account and per address).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  deleteApiKey,
  getApiKey,
  renewedExpiry,
  SESSION_TOKEN_NAME,
  TOKEN_LOGIN_TYPE,
  touchApiKey,
} from "../../src/accounts/api-keys";
import { SignInRefusedError, TooManySignInAttemptsError } from "../../src/accounts/errors";
import { type SignInConfig, signIn, signOut } from "../../src/accounts/sessions";
import { FAILURE_WINDOW_MS, MAX_LOCKOUT_MS, recordFailure, assertNotLocked, purgeStaleFailures } from "../../src/accounts/sign-in-throttle";
import { createUser } from "../../src/accounts/users";
import { iterationsOf } from "../../src/accounts/password";
import { organizations, signInFailures, users } from "../../src/db/schema/auth";
import { eq } from "drizzle-orm";
import { createOwnDatabase, type OwnDatabase } from "./support/own-database";

const HOUR = 3_600_000;
const SESSIONS = { idleMs: HOUR, maxMs: 10 * HOUR };
const THROTTLE = { maxFailures: 3, lockoutSeconds: 60 };

const config: SignInConfig = {
  CHAT_SESSION_IDLE_SECONDS: SESSIONS.idleMs / 1000,
  CHAT_SESSION_MAX_SECONDS: SESSIONS.maxMs / 1000,
  CHAT_SIGN_IN_MAX_FAILURES: THROTTLE.maxFailures,
  CHAT_SIGN_IN_LOCKOUT_SECONDS: THROTTLE.lockoutSeconds,
  CHAT_PASSWORD_HASH_ITERATIONS: 20_000,
};

let own: OwnDatabase;
let orgId: string;
let n = 0;
beforeAll(async () => {
  own = await createOwnDatabase("sign_in");
  const [org] = await own.db.insert(organizations).values({ name: "sign-in" }).returning();
  orgId = org!.id;
});
afterAll(async () => own?.drop());

async function userWithPassword(password = "correct horse", passwordIterations = config.CHAT_PASSWORD_HASH_ITERATIONS) {
  n++;
  return createUser(own.db, {
    email: `user${n}@example.com`,
    username: `user${n}`,
    password,
    passwordIterations,
    organizationId: orgId,
    role: "member",
  });
}

describe("signIn", () => {
  it("answers a session for the right password: a full-scope key named session, expiring after the idle lifetime", async () => {
    const user = await userWithPassword();
    const now = new Date();
    const session = await signIn(
      own.db,
      { email: user.email.toUpperCase(), password: "correct horse", address: "203.0.113.1" },
      now,
      config,
    );
    expect(session.key).toMatchObject({ userId: user.id, tokenName: SESSION_TOKEN_NAME, loginType: "password", scope: "all" });
    expect(session.key.expiresAt.getTime()).toBe(now.getTime() + SESSIONS.idleMs);
    expect(session.token.startsWith(`${session.key.id}-`)).toBe(true);
  });

  it("refuses a wrong password, an unknown email, a user without a password and a suspended user alike", async () => {
    const user = await userWithPassword();
    const none = await createUser(own.db, {
      email: `nopass${n}@example.com`,
      username: `nopass${n}`,
      organizationId: orgId,
      role: "member",
    });
    const suspended = await userWithPassword();
    await own.db.update(users).set({ suspended: true }).where(eq(users.id, suspended.id));
    for (const [email, password] of [
      [user.email, "wrong horse"],
      ["nobody@example.com", "correct horse"],
      [none.email, "correct horse"],
      [suspended.email, "correct horse"],
    ] as const) {
      await expect(signIn(own.db, { email, password, address: undefined }, new Date(), config)).rejects.toBeInstanceOf(SignInRefusedError);
    }
  });

  it("locks the account after the failures allowed, even for the right password, and forgets them after a success", async () => {
    const user = await userWithPassword();
    const t0 = new Date();
    const attempt = (password: string, at: Date, address = "198.51.100.7") =>
      signIn(own.db, { email: user.email, password, address }, at, config);
    await expect(attempt("wrong", t0)).rejects.toBeInstanceOf(SignInRefusedError);
    await expect(attempt("wrong", t0)).rejects.toBeInstanceOf(SignInRefusedError);
    // The right password before the limit: signed in, and the account's count starts over.
    await expect(attempt("correct horse", t0)).resolves.toBeTruthy();
    for (let i = 0; i < THROTTLE.maxFailures; i++)
      await expect(attempt("wrong", t0, `192.0.2.${i}`)).rejects.toBeInstanceOf(SignInRefusedError);
    const locked = attempt("correct horse", new Date(t0.getTime() + 1000), "192.0.2.200");
    await expect(locked).rejects.toBeInstanceOf(TooManySignInAttemptsError);
    await expect(locked).rejects.toMatchObject({ retryAfterSeconds: 59 });
    // Once the lock has passed, the right password signs in.
    await expect(attempt("correct horse", new Date(t0.getTime() + 61_000), "192.0.2.200")).resolves.toBeTruthy();
  });

  it("locks an address that failed on many accounts, for any account", async () => {
    const address = "203.0.113.99";
    const t0 = new Date();
    for (let i = 0; i < THROTTLE.maxFailures; i++) {
      const other = await userWithPassword();
      await expect(signIn(own.db, { email: other.email, password: "wrong", address }, t0, config)).rejects.toBeInstanceOf(
        SignInRefusedError,
      );
    }
    const fresh = await userWithPassword();
    await expect(signIn(own.db, { email: fresh.email, password: "correct horse", address }, t0, config)).rejects.toBeInstanceOf(
      TooManySignInAttemptsError,
    );
    await expect(
      signIn(own.db, { email: fresh.email, password: "correct horse", address: "203.0.113.100" }, t0, config),
    ).resolves.toBeTruthy();
  });
});

describe("the password hash's cost", () => {
  it("is the configured one for new passwords, and a sign-in rehashes one stored at another", async () => {
    const user = await userWithPassword("correct horse", 10_000);
    expect(iterationsOf(user.passwordHash ?? "")).toBe(10_000);
    await signIn(own.db, { email: user.email, password: "correct horse", address: undefined }, new Date(), config);
    const [row] = await own.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    expect(iterationsOf(row?.hash ?? "")).toBe(config.CHAT_PASSWORD_HASH_ITERATIONS);
    // The rehashed password still signs in.
    await expect(
      signIn(own.db, { email: user.email, password: "correct horse", address: undefined }, new Date(), config),
    ).resolves.toBeTruthy();
  });
});

describe("the throttle", () => {
  it("doubles the lock with each failure past the limit, up to the cap, and starts over after the window", async () => {
    const subject = [`account:doubling${n++}@example.com`];
    const t0 = new Date("2031-01-01T00:00:00Z");
    const lockedFor = async (at: Date) => {
      try {
        await assertNotLocked(own.db, subject, at);
        return 0;
      } catch (err) {
        return (err as TooManySignInAttemptsError).retryAfterSeconds;
      }
    };
    await recordFailure(own.db, subject, t0, THROTTLE);
    await recordFailure(own.db, subject, t0, THROTTLE);
    expect(await lockedFor(t0)).toBe(0);
    await recordFailure(own.db, subject, t0, THROTTLE);
    expect(await lockedFor(t0)).toBe(60);
    await recordFailure(own.db, subject, t0, THROTTLE);
    expect(await lockedFor(t0)).toBe(120);
    for (let i = 0; i < 10; i++) await recordFailure(own.db, subject, t0, THROTTLE);
    expect(await lockedFor(t0)).toBe(MAX_LOCKOUT_MS / 1000);
    // Past the window (and the lock), the next failure counts as the first.
    const later = new Date(t0.getTime() + FAILURE_WINDOW_MS + MAX_LOCKOUT_MS);
    await recordFailure(own.db, subject, later, THROTTLE);
    expect(await lockedFor(later)).toBe(0);
    const [row] = await own.db.select().from(signInFailures).where(eq(signInFailures.subject, subject[0]!));
    expect(row?.failures).toBe(1);
  });

  it("purges what counts for nothing any more, and keeps what still does", async () => {
    const t0 = new Date("2032-01-01T00:00:00Z");
    const old = [`account:old${n++}@example.com`];
    const fresh = [`account:fresh${n++}@example.com`];
    await recordFailure(own.db, old, t0, THROTTLE);
    await recordFailure(own.db, fresh, new Date(t0.getTime() + FAILURE_WINDOW_MS), THROTTLE);
    await purgeStaleFailures(own.db, new Date(t0.getTime() + FAILURE_WINDOW_MS + 1000));
    const left = (await own.db.select().from(signInFailures)).map((r) => r.subject);
    expect(left).toContain(fresh[0]);
    expect(left).not.toContain(old[0]);
  });
});

describe("session renewal", () => {
  it("moves a session's expiry to the idle lifetime from its use, never past its maximum, never back", async () => {
    const user = await userWithPassword();
    const session = await signIn(own.db, { email: user.email, password: "correct horse", address: undefined }, new Date(), config);
    const created = session.key.createdAt.getTime();
    const use = new Date(created + 30 * 60_000);
    await touchApiKey(own.db, session.key.id, use, SESSIONS);
    const renewed = await getApiKey(own.db, session.key.id);
    expect(renewed?.expiresAt.getTime()).toBe(use.getTime() + SESSIONS.idleMs);
    expect(renewedExpiry(session.key, use, SESSIONS).getTime()).toBe(use.getTime() + SESSIONS.idleMs);
    // Near its maximum: capped there.
    const late = new Date(created + SESSIONS.maxMs - 10 * 60_000);
    await touchApiKey(own.db, session.key.id, late, SESSIONS);
    expect((await getApiKey(own.db, session.key.id))?.expiresAt.getTime()).toBe(created + SESSIONS.maxMs);
  });

  it("leaves a token's expiry alone", async () => {
    const user = await userWithPassword();
    const expiresAt = new Date(Date.now() + 5 * 60_000);
    const { key } = await createApiKey(own.db, { userId: user.id, tokenName: "ci", loginType: TOKEN_LOGIN_TYPE, expiresAt });
    await touchApiKey(own.db, key.id, new Date(), SESSIONS);
    expect((await getApiKey(own.db, key.id))?.expiresAt.toISOString()).toBe(expiresAt.toISOString());
  });
});

describe("tokens minted by tokens", () => {
  it("expire no later than their parent, and go with it", async () => {
    const user = await userWithPassword();
    const session = await signIn(own.db, { email: user.email, password: "correct horse", address: undefined }, new Date(), config);
    const child = await createApiKey(own.db, {
      userId: user.id,
      tokenName: "long-lived",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + 365 * 24 * HOUR),
      parent: session.key,
    });
    expect(child.key.expiresAt.toISOString()).toBe(session.key.expiresAt.toISOString());
    expect(child.key.parentKeyId).toBe(session.key.id);
    const grandchild = await createApiKey(own.db, {
      userId: user.id,
      tokenName: "from-the-child",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + HOUR / 2),
      parent: child.key,
    });
    await signOut(own.db, { userId: user.id, apiKeyId: session.key.id });
    expect(await getApiKey(own.db, session.key.id)).toBeNull();
    expect(await getApiKey(own.db, child.key.id)).toBeNull();
    expect(await getApiKey(own.db, grandchild.key.id)).toBeNull();
  });

  it("are deleted only by their own user", async () => {
    const user = await userWithPassword();
    const other = await userWithPassword();
    const { key } = await createApiKey(own.db, {
      userId: user.id,
      tokenName: "mine",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: new Date(Date.now() + HOUR),
    });
    expect(await deleteApiKey(own.db, other.id, key.id)).toBe(false);
    expect(await getApiKey(own.db, key.id)).not.toBeNull();
    expect(await deleteApiKey(own.db, user.id, key.id)).toBe(true);
  });
});
