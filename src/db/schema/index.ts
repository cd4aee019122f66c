/**
 * The drizzle schema: what `drizzle-kit generate` diffs against migrations/meta/'s latest snapshot
 * (`npm run db:check` fails when they differ). Objects the SQL migrations create that drizzle
 * cannot declare, and so are deliberately missing here:
 * - the trigger functions and their triggers (0001: revisions and versions; 0010: archived_at)
 *   and the function chatd_check (0011);
 * - `chat_heartbeats`, UNLOGGED, and the queue's DEFERRABLE unique (chat_id, position) (0002;
 *   see ./chats.ts, ./heartbeats.ts);
 * - the chats -> projects foreign key with ON DELETE SET NULL (project_id) (0005; see ./projects.ts).
 */
export * from "./auth";
export * from "./models";
export * from "./chats";
export * from "./files";
export * from "./compaction";
export * from "./projects";
export * from "./mcp";
export * from "./subagents";
export * from "./debug-runs";
