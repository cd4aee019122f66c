/**
 * The memory tools (spec "Project memory"): read_memory, save_memory and delete_memory, offered to
 * root chats in a project only (a subagent or a chat outside a project has no memory). The live
 * index is read when the tools are assembled and goes in read_memory's description; the system
 * prompt gets only the static guidance block. Every failure is an error tool result the model
 * sees (a thrown Error in `execute`), never a failed turn.
 */
import { z } from "zod";
import type { Database } from "../db/database";
import { MemoryCapReachedError, ProjectUnavailableError } from "../projects/errors";
import { deleteMemory, getMemory, listMemoryIndex, saveMemory } from "../memory/memories";
import { MEMORY_GUIDANCE } from "../memory/guidance";
import { renderMemoryIndex } from "../memory/memory-index";
import {
  MAX_MEMORIES,
  MAX_MEMORY_CONTENT_LENGTH,
  MAX_MEMORY_NAME_LENGTH,
  MEMORY_NAME_PATTERN,
  needsPruneReminder,
  pruneReminder,
} from "../memory/rules";
import { defineLocalTool, type LocalTool } from "../llm/tools";
import type { ToolChat, ToolFamily } from "./chat-tools";

export const MEMORY_TOOL_NAMES = ["read_memory", "save_memory", "delete_memory"] as const;

export interface MemoryToolDeps {
  db: Database;
  now(): Date;
}

/** Root chats in a project. */
export function offersMemory(chat: Pick<ToolChat, "parentChatId" | "projectId">): chat is ToolChat & { projectId: string } {
  return chat.parentChatId === null && chat.projectId !== null;
}

export function memoryToolFamily(deps: MemoryToolDeps): ToolFamily {
  return {
    name: "memory",
    async forChat(chat) {
      if (!offersMemory(chat)) return null;
      const memories = await listMemoryIndex(deps.db, chat.projectId);
      return { tools: memoryTools(deps, chat.projectId, renderMemoryIndex(memories)), guidance: MEMORY_GUIDANCE };
    },
  };
}

const nameSchema = z
  .string()
  .regex(MEMORY_NAME_PATTERN, `a name is 1-${MAX_MEMORY_NAME_LENGTH} letters, digits, '.', '_' or '-', starting with a letter or digit`);
const ReadArgs = z.object({ name: nameSchema });
const SaveArgs = z.object({ name: nameSchema, content: z.string().trim().min(1).max(MAX_MEMORY_CONTENT_LENGTH) });
const DeleteArgs = z.object({ name: nameSchema });

const nameJsonSchema = {
  type: "string",
  pattern: MEMORY_NAME_PATTERN.source,
  maxLength: MAX_MEMORY_NAME_LENGTH,
  description: "The memory's name: a short slug such as build-commands or user-preferences.",
} as const;

/** The model's arguments, checked here too: a replayed or hand-written call is not schema-checked by the SDK. */
function parseArgs<T>(schema: z.ZodType<T>, args: unknown): T {
  const parsed = schema.safeParse(args);
  if (!parsed.success)
    throw new Error(`invalid arguments: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(args)"}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

function memoryTools(deps: MemoryToolDeps, projectId: string, index: string): LocalTool[] {
  const { db } = deps;
  const read = defineLocalTool<unknown>({
    name: "read_memory",
    readOnly: true,
    description: `Read one of this project's memories in full, by name.\n\n${index}`,
    inputSchema: { type: "object", properties: { name: nameJsonSchema }, required: ["name"], additionalProperties: false },
    async execute(args) {
      const { name } = parseArgs(ReadArgs, args);
      const memory = await getMemory(db, projectId, name);
      if (!memory) throw new Error(`no memory named "${name}" in this project`);
      return { name: memory.name, content: memory.content, updated_at: memory.updatedAt.toISOString() };
    },
  });
  const save = defineLocalTool<unknown>({
    name: "save_memory",
    description:
      "Save a memory for every chat in this project: creates it, or replaces the content of the memory with this name. " +
      `Put the key point on the first line (the index shows it). At most ${MAX_MEMORIES} memories per project.`,
    inputSchema: {
      type: "object",
      properties: {
        name: nameJsonSchema,
        content: { type: "string", maxLength: MAX_MEMORY_CONTENT_LENGTH, description: "The memory's full text." },
      },
      required: ["name", "content"],
      additionalProperties: false,
    },
    async execute(args) {
      const input = parseArgs(SaveArgs, args);
      try {
        const saved = await saveMemory(db, projectId, input, deps.now());
        return {
          name: saved.memory.name,
          status: saved.created ? "created" : "updated",
          memory_count: saved.count,
          max_memories: MAX_MEMORIES,
          ...(needsPruneReminder(saved.count) ? { reminder: pruneReminder(saved.count) } : {}),
        };
      } catch (err) {
        throw toolError(err);
      }
    },
  });
  const remove = defineLocalTool<unknown>({
    name: "delete_memory",
    description: "Delete one of this project's memories, by name.",
    inputSchema: { type: "object", properties: { name: nameJsonSchema }, required: ["name"], additionalProperties: false },
    async execute(args) {
      const { name } = parseArgs(DeleteArgs, args);
      const deleted = await deleteMemory(db, projectId, name);
      if (!deleted) throw new Error(`no memory named "${name}" in this project`);
      return { name, status: "deleted" };
    },
  });
  return [read, save, remove];
}

/** What the model reads in its error result. */
function toolError(err: unknown): Error {
  if (err instanceof MemoryCapReachedError) return new Error(err.message);
  if (err instanceof ProjectUnavailableError) return new Error("this chat's project no longer exists");
  return err instanceof Error ? err : new Error(String(err));
}
