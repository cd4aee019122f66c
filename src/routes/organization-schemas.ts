/** The wire shapes of organizations and their members (docs/accounts.md). */
import { z } from "@hono/zod-openapi";
import type { Member } from "../accounts/memberships";
import { MEMBER_ROLES } from "../accounts/organizations";

const role = z.enum(MEMBER_ROLES as ["owner", "admin", "member"]);

export const CreateOrganizationBody = z
  .object({ name: z.string().trim().min(1).max(64).openapi({ example: "research" }) })
  .openapi("CreateOrganizationRequest");

export const OrganizationMemberSchema = z
  .object({
    user_id: z.uuid(),
    username: z.string(),
    email: z.string(),
    role,
    suspended: z.boolean(),
    joined_at: z.iso.datetime(),
  })
  .openapi("OrganizationMember");

export const AddMemberBody = z
  .object({
    user: z.string().min(1).max(64).openapi({ description: "A user ID or a username", example: "ada" }),
    role: role.default("member"),
  })
  .openapi("AddOrganizationMemberRequest");

export const UpdateMemberBody = z.object({ role }).openapi("UpdateOrganizationMemberRequest");

export const OrganizationParams = z.object({ organization: z.uuid() });
export const MemberParams = z.object({
  organization: z.uuid(),
  user: z.string().min(1).max(64).openapi({ description: '"me", a user ID or a username' }),
});

export function memberJson(member: Member): z.infer<typeof OrganizationMemberSchema> {
  return {
    user_id: member.userId,
    username: member.username,
    email: member.email,
    role: member.role,
    suspended: member.suspended,
    joined_at: member.joinedAt.toISOString(),
  };
}
