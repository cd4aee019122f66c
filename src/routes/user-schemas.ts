/**
 * The user and token wire shapes of api.md ("Auth") as zod schemas: the routes validate with them,
 * the OpenAPI document and the client SDK's types come from them.
 */
import { z } from "@hono/zod-openapi";
import { FULL_SCOPE, TOKEN_SCOPES } from "../accounts/api-keys";

export const DAY_SECONDS = 24 * 60 * 60;
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 30 * DAY_SECONDS;
export const MAX_TOKEN_LIFETIME_SECONDS = 365 * DAY_SECONDS;

export const UserSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    username: z.string(),
    /** Site-wide roles, e.g. "owner"; organization roles are per membership. */
    roles: z.array(z.string()),
    organization_ids: z.array(z.uuid()),
    /** A suspended user's tokens and sessions do not authenticate. */
    suspended: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .openapi("User");

export const DeleteUserResponse = z
  .object({
    /** The deleted user's root chats, archived with their families (what ran was interrupted first). */
    archived_chat_ids: z.array(z.uuid()),
    /** Families the archive refused (a running member with queued messages), and why. */
    not_archived: z.array(z.object({ chat_id: z.uuid(), reason: z.string() })),
  })
  .openapi("DeleteUserResponse");

export const UpdateUserBody = z.object({ suspended: z.boolean() }).openapi("UpdateUserRequest");

export const OrganizationSchema = z
  .object({ id: z.uuid(), name: z.string(), is_default: z.boolean(), created_at: z.iso.datetime() })
  .openapi("Organization");

const email = z.email().max(254).openapi({ example: "ada@example.com" });
const username = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-zA-Z0-9]+(?:[-_][a-zA-Z0-9]+)*$/, { error: "letters and digits, single - or _ between them" })
  .refine((u) => u.toLowerCase() !== "me", { error: '"me" is reserved' })
  .openapi({ example: "ada" });

/** At least MIN_PASSWORD_LENGTH characters; the upper bound keeps PBKDF2's input small. */
export const MIN_PASSWORD_LENGTH = 8;
const password = z.string().min(MIN_PASSWORD_LENGTH).max(256);

/** The header POST /users/first takes the operator's CHAT_BOOTSTRAP_SECRET in. */
export const BOOTSTRAP_HEADER = "Chatd-Bootstrap-Secret";
export const BootstrapHeaders = z.object({
  [BOOTSTRAP_HEADER.toLowerCase()]: z.string().max(1024).optional().openapi({ description: "The operator's CHAT_BOOTSTRAP_SECRET" }),
});

export const FirstUserBody = z.object({ email, username, password: password.optional() }).openapi("CreateFirstUserRequest");
export const CreateUserBody = z
  .object({ email, username, organization_id: z.uuid().optional(), password: password.optional() })
  .openapi("CreateUserRequest");

export const LoginBody = z.object({ email, password: z.string().min(1).max(256) }).openapi("LoginRequest");
export const LoginResponse = z.object({ session_token: z.string(), expires_at: z.iso.datetime() }).openapi("LoginResponse");
/** Whether single sign-on is on (GET /users/oidc). */
export const SingleSignOnStatus = z.object({ enabled: z.boolean() }).openapi("SingleSignOnStatus");

export const LogoutResponse = z.object({ message: z.string() }).openapi("LogoutResponse");

/** A token or session as its user sees it: never its secret. */
export const ApiKeySchema = z
  .object({
    id: z.string(),
    user_id: z.uuid(),
    token_name: z.string(),
    /** "token" for tokens made with POST /users/{user}/keys/tokens; a session carries its user's login type. */
    login_type: z.string(),
    scope: z.string(),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
    /** The key this one was minted with: it ends when that one does. */
    parent_key_id: z.string().nullable(),
  })
  .openapi("ApiKey");
export const ApiKeyList = z.array(ApiKeySchema);
export const CreateTokenBody = z
  .object({
    token_name: z.string().trim().min(1).max(128),
    /** "all" (the default), or "chat_model_config:read": model discovery and config reads only. */
    scope: z.enum(TOKEN_SCOPES).default(FULL_SCOPE),
    lifetime_seconds: z.number().int().min(60).max(MAX_TOKEN_LIFETIME_SECONDS).optional(),
  })
  .openapi("CreateTokenRequest");

export const CreateFirstUserResponse = z
  .object({ user: UserSchema, organization: OrganizationSchema, session_token: z.string() })
  .openapi("CreateFirstUserResponse");

export const CreateTokenResponse = z.object({ key: z.string() }).openapi("CreateTokenResponse");
