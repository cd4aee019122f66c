/**
 * The live memory index: one line per memory (its name and the start of its first line), put in
 * the read_memory tool's description so the system prompt stays the same from turn to turn and
 * its prefix stays cacheable. Bounded, so 200 long memories cannot crowd the model's window. Pure.
 */
import { MAX_MEMORIES } from "./rules";

/** The part of a memory's first line shown in the index. */
export const INDEX_LINE_CHARS = 100;
/** The whole index; past it, remaining memories are counted, not listed. */
export const MAX_INDEX_CHARS = 16_000;

export interface IndexEntry {
  name: string;
  content: string;
}

export function firstLine(content: string): string {
  const line = (content.trimStart().split("\n", 1)[0] ?? "").trim();
  return line.length > INDEX_LINE_CHARS ? `${line.slice(0, INDEX_LINE_CHARS - 1)}…` : line;
}

/** `entries` in the order to list them (the caller sorts; by name keeps the text stable). */
export function renderMemoryIndex(entries: readonly IndexEntry[]): string {
  const header = `Memories in this project (${entries.length} of at most ${MAX_MEMORIES}):`;
  if (entries.length === 0) return `${header}\n(none yet)`;
  const lines: string[] = [header];
  let size = header.length;
  for (const [i, entry] of entries.entries()) {
    const line = `- ${entry.name}: ${firstLine(entry.content)}`;
    if (size + 1 + line.length > MAX_INDEX_CHARS) {
      lines.push(`(${entries.length - i} more not listed; the index is limited to ${MAX_INDEX_CHARS} characters)`);
      break;
    }
    lines.push(line);
    size += 1 + line.length;
  }
  return lines.join("\n");
}
