/**
 * The tools a model call offers. Two kinds, and the model sees no difference:
 * - dynamic tools, declared by the client in `chats.unsafe_dynamic_tools` and executed by it
 *   (pending calls put the chat in requires_action);
 * - local tools, executed by the runner (local-tools.ts) after the response is committed.
 * Neither is given an `execute` here: the AI SDK must only report calls, never run them, because
 * a call runs after its assistant message is durable (tool calls are at-least-once, not at-most).
 */
import { type JSONSchema7, jsonSchema, type ToolSet, tool } from "ai";
import type { ChatRow, DynamicToolDefinition } from "../db/schema/chats";

export interface LocalToolContext {
  abortSignal: AbortSignal;
  toolCallId: string;
}

/** A server-executed tool. `execute` returns a JSON-serializable result or throws (an is_error result). */
export interface LocalTool<Args = unknown> {
  name: string;
  description: string;
  inputSchema: JSONSchema7;
  /**
   * The tool only reads: it changes nothing outside the chat's own transcript, so plan mode may
   * offer it (docs/plan-mode.md). Absent: the tool may write.
   */
  readOnly?: boolean;
  execute(args: Args, context: LocalToolContext): Promise<unknown>;
}

export type LocalToolRegistry = ReadonlyMap<string, LocalTool>;

/** What a model step is given: the SDK's tool set plus which of its names are client-executed. */
export interface ModelTools {
  set: ToolSet;
  dynamicNames: ReadonlySet<string>;
}

const EMPTY_OBJECT_SCHEMA: JSONSchema7 = { type: "object", properties: {} };

/**
 * Typed definition, erased for the registry. Arguments are what the model sent, checked by the
 * SDK against `inputSchema` when the call streamed, not re-validated when run.
 */
export function defineLocalTool<Args>(definition: LocalTool<Args>): LocalTool {
  return definition as LocalTool;
}

export function localToolRegistry(tools: readonly LocalTool[]): LocalToolRegistry {
  const registry = new Map<string, LocalTool>();
  for (const t of tools) {
    if (registry.has(t.name)) throw new Error(`local tool "${t.name}" is registered twice`);
    registry.set(t.name, t);
  }
  return registry;
}

export function dynamicToolDefinitions(chat: Pick<ChatRow, "unsafeDynamicTools">): readonly DynamicToolDefinition[] {
  return chat.unsafeDynamicTools ?? [];
}

/** Whether `name` is one of the chat's client-executed tools (the same test the chat store uses). */
export function isDynamicTool(chat: Pick<ChatRow, "unsafeDynamicTools">, name: string): boolean {
  return dynamicToolDefinitions(chat).some((t) => t.name === name);
}

/**
 * The chat's tools for a model call. A dynamic tool shadows a local tool of the same name, so the
 * model, the decision (decide.ts) and EnterRequiresAction agree on who runs a call. `hidden` local
 * tools are left out (MCP tools behind find_tools, write tools in plan mode); in plan mode so is a
 * dynamic tool its client did not declare `read_only` (docs/plan-mode.md).
 */
export function modelTools(
  chat: Pick<ChatRow, "unsafeDynamicTools"> & Partial<Pick<ChatRow, "planMode">>,
  registry: LocalToolRegistry = new Map(),
  hidden: ReadonlySet<string> = new Set(),
): ModelTools {
  const set: ToolSet = {};
  for (const local of registry.values()) {
    if (hidden.has(local.name)) continue;
    set[local.name] = tool({ description: local.description, inputSchema: jsonSchema(local.inputSchema) });
  }
  const dynamicNames = new Set<string>();
  for (const dynamic of dynamicToolDefinitions(chat)) {
    if (chat.planMode && dynamic.read_only !== true) {
      // Not offered; a local tool of the same name is not offered either (it would run a call the client means to).
      delete set[dynamic.name];
      continue;
    }
    const schema = (dynamic.input_schema ?? EMPTY_OBJECT_SCHEMA) as JSONSchema7;
    set[dynamic.name] = tool({
      ...(dynamic.description ? { description: dynamic.description } : {}),
      inputSchema: jsonSchema(schema),
    });
    dynamicNames.add(dynamic.name);
  }
  return { set, dynamicNames };
}
