/**
 * The memory guidance block of the system prompt, for chats offered the memory tools. Static on
 * purpose: the live index is in the read_memory tool description, so this text (and with it the
 * prompt prefix) never changes between turns.
 */
import { MAX_MEMORIES, PRUNE_REMINDER_FROM } from "./rules";

export const MEMORY_GUIDANCE = [
  "# Project memory",
  "This chat belongs to a project whose chats share a durable memory. The read_memory tool's description",
  "lists every memory by name with the start of its first line; read a memory in full with read_memory.",
  "Save what future chats in this project should know (decisions, conventions, facts about the user's work)",
  "with save_memory: one topic per memory, a short name, the key point on the first line. Saving under an",
  "existing name replaces it; prefer updating a memory to adding a near-duplicate. Remove what is wrong or",
  `stale with delete_memory. A project holds at most ${MAX_MEMORIES} memories; from ${PRUNE_REMINDER_FROM} on, prune before saving more.`,
  "Never save secrets or credentials.",
].join("\n");
