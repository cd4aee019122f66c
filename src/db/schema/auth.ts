/**
 * Users, organizations, memberships and API keys (docs/api.md "Auth"). Tokens are `<id>-<secret>`;
 * only a hash of the secret is stored.
 */
import { sql } from "drizzle-orm";
import { boolean, check, foreignKey, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

export const organizations = pgTable("organizations", {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull().unique(),
  isDefault: boolean().notNull().default(false),
  /** MCP tool search (docs/mcp.md#tool-search) for the organization's chats, unless the owner chose. */
  mcpToolSearch: boolean().notNull().default(false),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const users = pgTable("users", {
  id: uuid().primaryKey().defaultRandom(),
  email: text().notNull().unique(),
  username: text().notNull().unique(),
  /** PBKDF2-SHA256 (src/accounts/password.ts); null for users who sign in only with tokens. */
  passwordHash: text(),
  /** Roles that apply across the deployment, e.g. "owner". */
  siteRoles: text().array().notNull().default(sql`'{}'::text[]`),
  /** How the user signs in: "password" | "none". Never "token" (that is a key's login type). */
  loginType: text().notNull().default("password"),
  suspended: boolean().notNull().default(false),
  /** When the site owner deleted the user (src/accounts/user-deletion.ts); null while they exist. */
  deletedAt: timestamp({ withTimezone: true }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const organizationMembers = pgTable(
  "organization_members",
  {
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "owner" | "admin" | "member" (src/accounts/roles.ts) */
    role: text().notNull().default("member"),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    // Migration 0013.
    check("organization_members_role_check", sql`${t.role} IN ('owner', 'admin', 'member')`),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    /** The public half of a token (`<id>-<secret>`). */
    id: text().primaryKey(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** SHA-256 of the secret, hex. */
    hashedSecret: text().notNull(),
    tokenName: text().notNull(),
    /** "token" for user-created keys; synthetic chatd keys carry the owner's login type. */
    loginType: text().notNull(),
    scope: text().notNull().default("all"),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    lastUsedAt: timestamp({ withTimezone: true }),
    /** The token this one was minted with, if any: deleting it deletes this one (no child outlives its parent). */
    parentKeyId: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Named as Postgres named it: migration 0012 declared the reference inline.
    foreignKey({ name: "api_keys_parent_key_id_fkey", columns: [t.parentKeyId], foreignColumns: [t.id] }).onDelete("cascade"),
    // As the spec says, the unique index on token names covers only login_type = 'token' rows.
    uniqueIndex("api_keys_user_token_name_idx").on(t.userId, t.tokenName).where(sql`${t.loginType} = 'token'`),
    index("api_keys_user_id_idx").on(t.userId),
    index("api_keys_parent_key_id_idx").on(t.parentKeyId).where(sql`${t.parentKeyId} IS NOT NULL`),
    // The purge of long-expired synthetic attribution keys (src/chats/purge.ts).
    index("api_keys_attribution_expires_at_idx").on(t.expiresAt).where(sql`${t.scope} = 'chatd:attribution'`),
  ],
);

/** Failed sign-ins per subject ("account:<email>", "address:<ip>"), which slow the next ones (src/accounts/sign-in-throttle.ts). */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    subject: text().primaryKey(),
    failures: integer().notNull(),
    firstFailedAt: timestamp({ withTimezone: true }).notNull(),
    lockedUntil: timestamp({ withTimezone: true }),
  },
  (t) => [index("sign_in_failures_first_failed_at_idx").on(t.firstFailedAt)],
);
