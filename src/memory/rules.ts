/**
 * The rules of project memory (spec "Project memory"), pure: what a memory may be called and
 * hold, how many a project keeps, and when a save reminds the agent to prune. The database layer
 * (src/memory/memories.ts) enforces the cap under the project's advisory lock; the tools
 * (src/tools/memory.ts) and the HTTP routes read these.
 */

/** A project holds at most this many memories; a save of a new name beyond it fails. */
export const MAX_MEMORIES = 200;
/** From this many memories on, every save result carries a reminder to prune. */
export const PRUNE_REMINDER_FROM = 180;

/** Names are short slugs: safe in a URL path, in a tool description, and easy to type. */
export const MEMORY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const MAX_MEMORY_NAME_LENGTH = 64;
export const MAX_MEMORY_CONTENT_LENGTH = 8_000;

export function isValidMemoryName(name: string): boolean {
  return MEMORY_NAME_PATTERN.test(name);
}

/** Whether a save result (the project then holding `count` memories) carries the prune reminder. */
export function needsPruneReminder(count: number): boolean {
  return count >= PRUNE_REMINDER_FROM;
}

export function pruneReminder(count: number): string {
  return (
    `This project now holds ${count} of at most ${MAX_MEMORIES} memories. Prune: delete memories that are ` +
    "stale or no longer useful, and fold related ones into one, before saving more."
  );
}

/** Whether a save of a name the project does not hold yet is refused (it holds `count`). */
export function isAtCap(count: number): boolean {
  return count >= MAX_MEMORIES;
}

export function capReachedMessage(name: string): string {
  return (
    `Memory "${name}" was not saved: this project already holds the maximum of ${MAX_MEMORIES} memories. ` +
    "In this same turn, delete memories that are no longer useful (delete_memory) or fold this content " +
    "into an existing memory by saving under its name, then save again if still needed."
  );
}
