/**
 * Test users, organizations and tokens created directly through the account layer: the worker
 * tests share one database, where `POST /users/first` can succeed only once, so every test makes
 * its own users here instead. Each helper opens and ends its own pool (an I/O object must not
 * outlive the request context that made it).
 */
import { env, SELF } from "cloudflare:test";
import { createApiKey, TOKEN_LOGIN_TYPE } from "../../../src/accounts/api-keys";
import { addMember, type MemberRole } from "../../../src/accounts/organizations";
import { createUser } from "../../../src/accounts/users";
import { createDb, createPool, type Db } from "../../../src/db/client";
import { organizations } from "../../../src/db/schema/auth";

export const BASE = "http://chatd.test/api/v2";

export async function withDb<T>(fn: (db: Db) => Promise<T>, connections = 4): Promise<T> {
  const pool = createPool({ databaseUrl: env.DATABASE_URL, wsProxy: env.NEON_WS_PROXY, max: connections });
  try {
    return await fn(createDb(pool));
  } finally {
    await pool.end();
  }
}

export function unique(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
}

export async function createOrg(): Promise<string> {
  return withDb(async (db) => {
    const [org] = await db
      .insert(organizations)
      .values({ name: unique("org-") })
      .returning();
    if (!org) throw new Error("no organization row");
    return org.id;
  });
}

export interface TestUser {
  id: string;
  username: string;
  email: string;
  token: string;
  apiKeyId: string;
  organizationId: string;
}

export interface TestUserOptions {
  /** Joins this organization; a new one by default. */
  organizationId?: string;
  role?: MemberRole;
  siteOwner?: boolean;
  /** Token expiry; an hour from now by default. */
  expiresAt?: Date;
}

export async function createTestUser(opts: TestUserOptions = {}): Promise<TestUser> {
  const organizationId = opts.organizationId ?? (await createOrg());
  return withDb(async (db) => {
    const username = unique("u");
    const email = `${username}@example.com`;
    const user = await createUser(db, {
      email,
      username,
      siteRoles: opts.siteOwner ? ["owner"] : [],
      organizationId,
      role: opts.role ?? "member",
    });
    const { key, token } = await createApiKey(db, {
      userId: user.id,
      tokenName: "test",
      loginType: TOKEN_LOGIN_TYPE,
      expiresAt: opts.expiresAt ?? new Date(Date.now() + 3600_000),
    });
    return { id: user.id, username, email, token, apiKeyId: key.id, organizationId };
  });
}

export async function joinOrg(userId: string, organizationId: string, role: MemberRole): Promise<void> {
  await withDb((db) => addMember(db, organizationId, userId, role));
}

export interface ApiInit {
  method?: string;
  token?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request to the Worker under test; `body` is sent as JSON. */
export function api(path: string, init: ApiInit = {}): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
  }
  return SELF.fetch(`${BASE}${path}`, { method: init.method ?? (body === undefined ? "GET" : "POST"), headers, body });
}

/** The JSON body of an answer, after checking its status (the body is in the failure message). */
export async function expectJson<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
