/**
 * Personal subagent model overrides (spec "Reasoning effort", precedence step 2): a user's own
 * choice per (organization, subagent context). The composite foreign key makes another
 * organization's config unstorable; the write also checks the config is usable now. Whether it is
 * still usable at spawn time is the resolver's business (it falls through softly).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/database";
import { ModelConfigUnavailableError } from "./errors";
import type { ReasoningEffort } from "./options";
import { resolveModelConfig } from "./resolve";
import { isForeignKeyViolation } from "../db/pg-errors";
import {
  type ChatUserModelOverrideRow,
  chatUserModelOverrides,
  type PersonalOverrideMode,
  type SubagentContext,
} from "../db/schema/subagents";

export interface PersonalOverrideKey {
  userId: string;
  organizationId: string;
  context: SubagentContext;
}

export type PersonalOverrideInput =
  | { mode: "chat_default" | "deployment_default" }
  | { mode: "model"; modelConfigId: string; reasoningEffort: ReasoningEffort | null };

const keyWhere = (k: PersonalOverrideKey) =>
  and(
    eq(chatUserModelOverrides.userId, k.userId),
    eq(chatUserModelOverrides.organizationId, k.organizationId),
    eq(chatUserModelOverrides.context, k.context),
  );

export async function getPersonalOverride(db: Database, key: PersonalOverrideKey): Promise<ChatUserModelOverrideRow | null> {
  const [row] = await db.select().from(chatUserModelOverrides).where(keyWhere(key));
  return row ?? null;
}

/** Throws ModelConfigUnavailableError for a config the organization cannot use now. */
export async function setPersonalOverride(
  db: Database,
  key: PersonalOverrideKey,
  input: PersonalOverrideInput,
): Promise<ChatUserModelOverrideRow> {
  if (input.mode === "model") await resolveModelConfig(db, { organizationId: key.organizationId, modelConfigId: input.modelConfigId });
  const values = {
    mode: input.mode as PersonalOverrideMode,
    modelConfigId: input.mode === "model" ? input.modelConfigId : null,
    reasoningEffort: input.mode === "model" ? input.reasoningEffort : null,
  };
  try {
    const [row] = await db
      .insert(chatUserModelOverrides)
      .values({ ...key, ...values })
      .onConflictDoUpdate({
        target: [chatUserModelOverrides.userId, chatUserModelOverrides.organizationId, chatUserModelOverrides.context],
        set: { ...values, updatedAt: sql`now()` },
      })
      .returning();
    if (!row) throw new Error("the override upsert returned no row");
    return row;
  } catch (err) {
    if (isForeignKeyViolation(err) && input.mode === "model") throw new ModelConfigUnavailableError(input.modelConfigId, "not_found");
    throw err;
  }
}

/** True when a row was deleted. */
export async function deletePersonalOverride(db: Database, key: PersonalOverrideKey): Promise<boolean> {
  const rows = await db.delete(chatUserModelOverrides).where(keyWhere(key)).returning({ context: chatUserModelOverrides.context });
  return rows.length > 0;
}
