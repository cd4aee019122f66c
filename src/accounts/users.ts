/**
 * Users. The first user is the site owner and arrives with the default organization and a session
 * token, all in one transaction under a deployment-wide advisory lock, so two racing
 * `POST /users/first` calls cannot both succeed.
 */
import { eq } from "drizzle-orm";
import { hashPassword } from "./password";
import { SITE_OWNER } from "./roles";
import { LOCK_NAMESPACE, advisoryXactLock } from "../db/advisory-lock";
import { type Database, READ_COMMITTED } from "../db/database";
import { constraintOf, isUniqueViolation } from "../db/pg-errors";
import { users } from "../db/schema/auth";
import { type ApiKeyRow, createApiKey, SESSION_TOKEN_NAME } from "./api-keys";
import { AlreadyExistsError, FirstUserExistsError } from "./errors";
import { type MemberRole, type OrganizationRow, addMember, ensureDefaultOrganization } from "./organizations";

export type UserRow = typeof users.$inferSelect;
/** How a user signs in. Never "token": that is the login type of user-created keys. */
export type LoginType = "password" | "none";

/** The first user's session lives this long before it needs renewing (as a sign-in's would: api-keys.ts). */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export interface NewUser {
  email: string;
  username: string;
  /** A plain password; hashed here, never stored. Absent: login type "none". */
  password?: string | undefined;
  /** PBKDF2 iterations for the hash (CHAT_PASSWORD_HASH_ITERATIONS); the ceiling when absent. */
  passwordIterations?: number | undefined;
  siteRoles?: string[];
}

export interface FirstUser {
  user: UserRow;
  organization: OrganizationRow;
  sessionKey: ApiKeyRow;
  sessionToken: string;
}

/** Creates the site owner, the default organization and a session token; 409 once any user exists. */
export async function createFirstUser(db: Database, input: NewUser, now: Date): Promise<FirstUser> {
  // Hash before locking: PBKDF2 is slow on purpose and needs no lock.
  const passwordHash = await passwordHashOf(input.password, input.passwordIterations);
  return db.transaction(async (tx) => {
    await advisoryXactLock(tx, LOCK_NAMESPACE.firstUser, "first-user");
    const [existing] = await tx.select({ id: users.id }).from(users).limit(1);
    if (existing) throw new FirstUserExistsError();
    const organization = await ensureDefaultOrganization(tx);
    const user = await insertUser(tx, { ...input, siteRoles: [SITE_OWNER] }, passwordHash);
    await addMember(tx, organization.id, user.id, "owner");
    const session = await createApiKey(tx, {
      userId: user.id,
      tokenName: SESSION_TOKEN_NAME,
      loginType: user.loginType,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    });
    return { user, organization, sessionKey: session.key, sessionToken: session.token };
  }, READ_COMMITTED);
}

/** Creates a user and their membership of one organization, atomically. */
export async function createUser(db: Database, input: NewUser & { organizationId: string; role: MemberRole }): Promise<UserRow> {
  const passwordHash = await passwordHashOf(input.password, input.passwordIterations);
  return db.transaction(async (tx) => {
    const user = await insertUser(tx, input, passwordHash);
    await addMember(tx, input.organizationId, user.id, input.role);
    return user;
  }, READ_COMMITTED);
}

export async function getUser(db: Database, id: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row ?? null;
}

export async function findUserByUsername(db: Database, username: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.username, username));
  return row ?? null;
}

export async function findUserByEmail(db: Database, email: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  return row ?? null;
}

/** Suspends or reactivates a user: a suspended user's keys stop authenticating (and their sockets close). */
export async function setSuspended(db: Database, userId: string, suspended: boolean): Promise<UserRow | null> {
  const [row] = await db.update(users).set({ suspended }).where(eq(users.id, userId)).returning();
  return row ?? null;
}

/** Sets a user's password (and so their login type to "password"). */
export async function setPassword(db: Database, userId: string, password: string, iterations?: number): Promise<void> {
  const passwordHash = await hashPassword(password, iterations);
  await db.update(users).set({ passwordHash, loginType: "password" }).where(eq(users.id, userId));
}

async function passwordHashOf(password: string | undefined, iterations: number | undefined): Promise<string | null> {
  return password === undefined ? null : hashPassword(password, iterations);
}

async function insertUser(db: Database, input: NewUser, passwordHash: string | null): Promise<UserRow> {
  const loginType: LoginType = passwordHash === null ? "none" : "password";
  try {
    const [user] = await db
      .insert(users)
      .values({ email: input.email, username: input.username, passwordHash, loginType, siteRoles: input.siteRoles ?? [] })
      .returning();
    if (!user) throw new Error("insert into users returned no row");
    return user;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AlreadyExistsError("user", constraintOf(err) === "users_username_unique" ? "username" : "email");
    }
    throw err;
  }
}
