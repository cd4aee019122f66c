/**
 * Projects and their memory (spec "Project memory"). A project belongs to one organization and
 * one owner; root chats in it share the project's memories, which the agent writes itself through
 * the memory tools (src/tools/memory/).
 *
 * Not declared here, because drizzle cannot say it (migrations/0005_projects_memory.sql): the
 * composite foreign key chats (project_id, organization_id) -> projects (id, organization_id)
 * with ON DELETE SET NULL (project_id), which keeps a chat's project in the chat's organization
 * and clears only the project column when the project goes.
 */
import { index, pgTable, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations, users } from "./auth";

export const projects = pgTable(
  "projects",
  {
    id: uuid().primaryKey().defaultRandom(),
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    ownerId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The target of the chats' composite foreign key.
    unique("projects_id_organization_id_key").on(t.id, t.organizationId),
    index("projects_organization_id_owner_id_idx").on(t.organizationId, t.ownerId),
  ],
);

export const projectMemories = pgTable(
  "project_memories",
  {
    id: uuid().primaryKey().defaultRandom(),
    projectId: uuid()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    content: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("project_memories_project_id_name_idx").on(t.projectId, t.name)],
);

export type ProjectRow = typeof projects.$inferSelect;
export type ProjectMemoryRow = typeof projectMemories.$inferSelect;
