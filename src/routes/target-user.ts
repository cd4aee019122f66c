/** The `{user}` of a `/users/{user}/...` route: "me", an ID or a username, and who may name whom. */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { isSiteOwner } from "../accounts/roles";
import { findUserByUsername, getUser, type UserRow } from "../accounts/users";
import type { AppEnv } from "../http/app-env";
import { notFoundError } from "../http/org-access";

export const UserParam = z.object({
  user: z.string().min(1).max(64).openapi({ description: '"me", a user ID or a username', example: "me" }),
});

/** The named user, if the caller may manage them (themself; the site owner: anyone); otherwise reported as missing. */
export async function targetUser(c: Context<AppEnv>, ref: string): Promise<UserRow> {
  const db = c.var.db;
  const caller = c.var.caller;
  const id = ref === "me" ? caller.userId : ref;
  const user = z.uuid().safeParse(id).success ? await getUser(db, id) : await findUserByUsername(db, ref);
  if (!user || (user.id !== caller.userId && !isSiteOwner(caller))) throw notFoundError("User");
  return user;
}
