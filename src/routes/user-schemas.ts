/**
 * The user and token wire shapes of api.md ("Auth") as zod schemas: the routes validate with them,
 * the OpenAPI document and the client SDK's types come from them.
 */
import { z } from "@hono/zod-openapi";

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
    created_at: z.iso.datetime(),
  })
  .openapi("User");

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

export const FirstUserBody = z
  .object({ email, username, password: z.string().min(8).max(256).optional() })
  .openapi("CreateFirstUserRequest");
export const CreateUserBody = z.object({ email, username, organization_id: z.uuid().optional() }).openapi("CreateUserRequest");
export const CreateTokenBody = z
  .object({
    token_name: z.string().trim().min(1).max(128),
    lifetime_seconds: z.number().int().min(60).max(MAX_TOKEN_LIFETIME_SECONDS).optional(),
  })
  .openapi("CreateTokenRequest");

export const CreateFirstUserResponse = z
  .object({ user: UserSchema, organization: OrganizationSchema, session_token: z.string() })
  .openapi("CreateFirstUserResponse");

export const CreateTokenResponse = z.object({ key: z.string() }).openapi("CreateTokenResponse");
