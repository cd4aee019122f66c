/**
 * The chat wire shapes of docs/api.md as zod schemas: request validation and the OpenAPI document
 * come from the same definitions.
 */
import { z } from "@hono/zod-openapi";
import { McpServerIdsField } from "./mcp-server-schemas";
import { REASONING_EFFORTS } from "../model-configs/options";
import { LIST_CHATS_MAX_OFFSET } from "../chats/queries";
import { CHAT_CLIENT_TYPES } from "../db/schema/chats";
import { CODER_ERROR_KINDS } from "../wire/error-kind";

/** Limits on what one request may carry; the body limit bounds the bytes as well. */
export const MAX_TEXT_PART_CHARS = 1_000_000;
export const MAX_PARTS_PER_MESSAGE = 100;
export const MAX_LABELS = 50;

/** Bounds of a file reference: a path, and line numbers a file can have. */
export const MAX_FILE_REFERENCE_NAME_CHARS = 4096;
const MAX_LINE_NUMBER = 100_000_000;
const lineNumber = z.number().int().min(0).max(MAX_LINE_NUMBER);

/**
 * Lines of a file the user points at, as Coder's clients send a diff comment. Go's client leaves
 * out zero and empty fields, so the lines and the content default to 0 and "".
 */
const FileReferenceInputSchema = z
  .object({
    type: z.literal("file-reference"),
    file_name: z
      .string()
      .min(1, { error: "file_name must not be empty" })
      .max(MAX_FILE_REFERENCE_NAME_CHARS)
      .openapi({ description: "The file's path" }),
    start_line: lineNumber.default(0),
    end_line: lineNumber.default(0),
    content: z.string().max(MAX_TEXT_PART_CHARS).default("").openapi({ description: "The lines themselves" }),
  })
  .refine((p) => p.end_line >= p.start_line, { error: "end_line must not be before start_line", path: ["end_line"] });

export const ChatInputPartSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string().min(1, { error: "text parts must not be empty" }).max(MAX_TEXT_PART_CHARS) }),
    z.object({ type: z.literal("file"), file_id: z.uuid() }),
    FileReferenceInputSchema,
  ])
  .openapi("ChatInputPart");

/**
 * A committed message's part, in Coder's `ChatMessagePart` shapes (src/wire/message-part.ts). A tool
 * the provider ran itself (web search) is a `tool-call` / `tool-result` with `provider_executed`:
 * recorded, never executed or answered by a client.
 */
export const ChatMessagePartSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("reasoning"), text: z.string() }),
    z.object({
      type: z.literal("tool-call"),
      tool_call_id: z.string(),
      tool_name: z.string(),
      args: z.unknown(),
      provider_executed: z.literal(true).optional().openapi({ description: "Set when the provider ran the tool itself" }),
      provider: z.string().optional().openapi({ description: "The provider family that ran it (ours; Coder has no such field)" }),
    }),
    z.object({
      type: z.literal("tool-result"),
      tool_call_id: z.string(),
      tool_name: z.string(),
      result: z.unknown(),
      is_error: z.boolean(),
      provider_executed: z.literal(true).optional(),
      provider: z.string().optional(),
    }),
    z.object({ type: z.literal("file"), file_id: z.string(), media_type: z.string(), name: z.string() }),
    z.object({
      type: z.literal("file-reference"),
      file_name: z.string(),
      start_line: z.number().int(),
      end_line: z.number().int(),
      content: z.string(),
    }),
    z.object({ type: z.literal("source"), url: z.string(), title: z.string().optional() }),
  ])
  .openapi("ChatMessagePart");

const content = z.array(ChatInputPartSchema).max(MAX_PARTS_PER_MESSAGE);
const nonEmptyContent = content.min(1, { error: "a message needs at least one part" });
const labels = z
  .record(z.string().min(1).max(64), z.string().max(256))
  .refine((l) => Object.keys(l).length <= MAX_LABELS, { error: `at most ${MAX_LABELS} labels` });
const reasoningEffort = z.enum(REASONING_EFFORTS);
const timestamp = z.string().openapi({ format: "date-time" });

/** Coder's `ChatError` (the `error` stream event carries the same object), plus this service's `reason`. */
export const ChatErrorSchema = z
  .object({
    message: z.string(),
    detail: z.string().nullable(),
    kind: z.enum(CODER_ERROR_KINDS).openapi({ description: "Coder's error kind" }),
    reason: z.string().openapi({ description: "This service's finer classification, e.g. `server`, `network`, `generation_failed`" }),
    provider: z.string().nullable(),
    retryable: z.boolean(),
    status_code: z.number().int().nullable(),
  })
  .openapi("ChatError");

/**
 * Plan mode in a request: Coder's `"plan"` (on) or `""` (off), or this service's boolean; null or
 * left out changes nothing (docs/plan-mode.md).
 */
const planModeInput = z
  .union([z.enum(["plan", ""]), z.boolean()])
  .nullable()
  .openapi({ description: '`plan` or `true` turns plan mode on; `""` or `false` turns it off' });

/** A request's plan mode as on or off; undefined when the request leaves it unchanged. */
export function planModeOf(value: z.infer<typeof planModeInput> | undefined): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  return value === true || value === "plan";
}

/** The fields every chat has, a subagent inside its parent's `children` included. */
const chatFields = {
  id: z.uuid(),
  organization_id: z.uuid(),
  owner_id: z.uuid(),
  parent_chat_id: z.uuid().nullable(),
  root_chat_id: z.uuid().nullable(),
  title: z.string(),
  title_source: z.enum(["fallback", "generated", "user"]),
  title_updated_at: timestamp,
  /** A short summary of the chat so far, written in the background after a turn (docs/titles.md). */
  summary: z.string().nullable(),
  /** The turn status label: what the last turn did, in a few words (the chat list shows it). */
  last_turn_summary: z.string().nullable(),
  summary_updated_at: timestamp.nullable(),
  status: z.enum(["waiting", "running", "interrupting", "requires_action", "error"]),
  archived: z.boolean(),
  last_error: ChatErrorSchema.nullable().openapi({
    description: "Coder's `ChatError`: why the chat is in `error`; null when it has no error",
  }),
  labels: z.record(z.string(), z.string()),
  pin_order: z.number().int(),
  last_model_config_id: z.uuid().nullable(),
  last_reasoning_effort: z.string().nullable(),
  project_id: z.uuid().nullable(),
  /** The organization MCP servers the chat's model may call (docs/mcp.md). */
  mcp_server_ids: z.array(z.uuid()),
  /** Plan mode (docs/plan-mode.md): the model is told to plan and offered read-only tools only. */
  plan_mode: z.enum(["plan", ""]).openapi({ description: "Coder's `ChatPlanMode`: `plan` when plan mode is on, empty when off" }),
  snapshot_version: z.number().int(),
  history_version: z.number().int(),
  queue_version: z.number().int(),
  retry_state_version: z.number().int(),
  generation_attempt: z.number().int(),
  retry_state: z.unknown().nullable(),
  requires_action_deadline_at: timestamp.nullable(),
  worker_id: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  has_unread: z.boolean().openapi({
    description: "An assistant message arrived since the owner last opened or closed the chat's stream (Coder's read cursor)",
  }),
  client_type: z.enum(CHAT_CLIENT_TYPES).openapi({ description: "Where the chat was created: `ui` (a browser app) or `api`" }),
  shared: z.literal(false).openapi({ description: "Coder's chat sharing: never, chats belong to their owner alone" }),
};

/** A subagent as its parent lists it: a whole chat whose own `children` is empty (no grandchildren). */
export const ChildChatSchema = z
  .object({
    ...chatFields,
    children: z.array(z.unknown()).max(0).openapi({ description: "Always empty: a subagent has no subagents" }),
  })
  .openapi("ChildChat");

export const ChatSchema = z
  .object({
    ...chatFields,
    children: z.array(ChildChatSchema).openapi({ description: "Coder's: the chat's subagents, newest first; empty for a subagent" }),
  })
  .openapi("Chat");

export const ChatMessageUsageSchema = z
  .object({
    input_tokens: z.number().int().nullable().openapi({ description: "The prompt's tokens, cached ones included" }),
    output_tokens: z.number().int().nullable().openapi({ description: "Tokens generated, reasoning included" }),
    total_tokens: z.number().int().nullable(),
    reasoning_tokens: z.number().int().nullable(),
    cached_input_tokens: z.number().int().nullable().openapi({ description: "Input tokens read from the provider's cache" }),
    cost_usd: z.string().nullable().openapi({
      description: "Exact cost in US dollars as priced when the step was committed; null when its model config had no prices",
      example: "0.004515",
    }),
  })
  .openapi("ChatMessageUsage");

/**
 * Message and queued-message ids: JSON integers (int64 in the database, as Coder's), positive and
 * below 2^53 so a JavaScript number holds them exactly. Message ids are insertion order.
 */
export const MessageId = z.int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ format: "int64", example: 42 });

/**
 * An id in a path or query string: decimal digits only (no sign, exponent, hex or spaces), so
 * anything else is a 400 rather than a number JavaScript happened to parse. The SDK may pass a number.
 */
export const MessageIdParam = z
  .union([MessageId, z.string().regex(/^[1-9][0-9]{0,15}$/, { error: "must be a positive integer" })])
  .pipe(z.coerce.number<string | number>().pipe(MessageId))
  .openapi({ type: "integer", format: "int64", example: 42 });

export const ChatMessageSchema = z
  .object({
    id: MessageId.openapi({ description: "Insertion order: a later message has a larger id" }),
    chat_id: z.uuid(),
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.array(ChatMessagePartSchema),
    revision: z.number().int(),
    queued_message_id: MessageId.nullable().openapi({ description: "The queued message it was promoted from" }),
    model_config_id: z.uuid().nullable(),
    reasoning_effort: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: timestamp,
    usage: ChatMessageUsageSchema.nullable().openapi({ description: "A model step's token counts and cost; null for every other message" }),
  })
  .openapi("ChatMessage");

export const ChatQueuedMessageSchema = z
  .object({
    id: MessageId,
    chat_id: z.uuid(),
    position: z.number().int(),
    content: z.array(ChatMessagePartSchema),
    model_config_id: z.uuid().nullable(),
    reasoning_effort: z.string().nullable(),
    created_by: z.uuid(),
    created_at: timestamp,
  })
  .openapi("ChatQueuedMessage");

export const CreateChatBody = z
  .object({
    organization_id: z.uuid().optional(),
    content,
    title: z.string().trim().min(1).max(256).optional(),
    system_prompt: z.string().max(MAX_TEXT_PART_CHARS).optional(),
    model_config_id: z.uuid().optional(),
    reasoning_effort: reasoningEffort.optional(),
    labels: labels.optional(),
    unsafe_dynamic_tools: z
      .array(
        z.object({
          name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
          description: z.string().max(4096).optional(),
          input_schema: z.record(z.string(), z.unknown()).optional(),
          /** The tool only reads: plan mode offers it (docs/plan-mode.md). */
          read_only: z.boolean().optional(),
        }),
      )
      .max(64)
      .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, { error: "tool names must be unique" })
      .optional(),
    project_id: z.uuid().optional(),
    mcp_server_ids: McpServerIdsField.optional(),
    /** Start in plan mode (docs/plan-mode.md). */
    plan_mode: planModeInput.optional(),
    /** Coder's: `ui` from a browser app, `api` (the default) from anything else; shown as the chat's client_type. */
    client_type: z.enum(CHAT_CLIENT_TYPES).optional(),
  })
  .openapi("CreateChatRequest");

export const UpdateChatBody = z
  .object({
    archived: z.boolean().optional(),
    /**
     * With `archived: true`: interrupt whatever of the family (or the child alone) is running,
     * wait until it has settled, then archive. Without it a running family answers 409, as the spec says.
     */
    interrupt: z.boolean().optional(),
    title: z.string().trim().min(1).max(256).optional(),
    labels: labels.optional(),
    pin_order: z.number().int().min(0).max(1_000_000).optional(),
    /** Replaces the chat's MCP servers from its next step on; `[]` removes them all. */
    mcp_server_ids: McpServerIdsField.optional(),
    /** Plan mode on or off, from the chat's next step on (docs/plan-mode.md). */
    plan_mode: planModeInput.optional(),
  })
  .refine((b) => !b.interrupt || b.archived === true, { message: "interrupt is only allowed with archived: true", path: ["interrupt"] })
  .openapi("UpdateChatRequest");

export const SendMessageBody = z
  .object({
    content: nonEmptyContent,
    busy_behavior: z.enum(["queue", "interrupt"]).default("queue"),
    model_config_id: z.uuid().optional(),
    reasoning_effort: reasoningEffort.optional(),
  })
  .openapi("SendMessageRequest");

export const SendMessageResponse = z
  .object({
    message: ChatMessageSchema.optional(),
    messages: z.array(ChatMessageSchema),
    queued_message: ChatQueuedMessageSchema.optional(),
    queued: z.boolean(),
    warnings: z.array(z.string()),
  })
  .openapi("SendMessageResponse");

export const EditMessageBody = z
  .object({ content: nonEmptyContent, model_config_id: z.uuid().optional(), reasoning_effort: reasoningEffort.optional() })
  .openapi("EditMessageRequest");

export const EditMessageResponse = z
  .object({
    message: ChatMessageSchema,
    messages: z.array(ChatMessageSchema),
    deleted_message_ids: z.array(MessageId),
    warnings: z.array(z.string()),
  })
  .openapi("EditMessageResponse");

export const MessagesResponse = z
  .object({
    messages: z.array(ChatMessageSchema),
    queued_messages: z.array(ChatQueuedMessageSchema),
    has_more: z.boolean().openapi({ description: "Older messages exist before the first of `messages`; false for the whole history" }),
  })
  .openapi("ChatMessages");

/** The most messages one page holds, and a page's size when `before_id` comes without `limit`. */
export const MESSAGES_PAGE_MAX = 500;
export const MESSAGES_PAGE_DEFAULT = 50;

export const ListMessagesQuery = z.object({
  /** The page holds the messages with smaller ids (older ones); a cursor, it need not name a message. */
  before_id: MessageIdParam.optional(),
  limit: z.coerce.number().int().min(1).max(MESSAGES_PAGE_MAX).optional(),
});

/** Coder's bounds on `GET /chats/{chat}/prompts?limit=`: 1 to 2000, 500 when left out. */
export const PROMPTS_LIMIT_MAX = 2000;
export const PROMPTS_LIMIT_DEFAULT = 500;

export const ChatPromptsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(PROMPTS_LIMIT_MAX).default(PROMPTS_LIMIT_DEFAULT),
});

/** Coder's `ChatPromptsResponse`: the chat's prompts, newest first. */
export const ChatPromptsResponse = z
  .object({
    prompts: z.array(
      z.object({
        id: ChatMessageSchema.shape.id,
        text: z.string().openapi({ description: "The user message's text parts, joined in order" }),
      }),
    ),
  })
  .openapi("ChatPrompts");

export const PromoteResponse = z
  .object({
    message: ChatMessageSchema.optional(),
    messages: z.array(ChatMessageSchema),
    queued_messages: z.array(ChatQueuedMessageSchema),
  })
  .openapi("PromoteQueuedMessageResponse");

export const ToolResultsBody = z
  .object({
    results: z
      .array(z.object({ tool_call_id: z.string().min(1).max(256), output: z.unknown(), is_error: z.boolean().optional() }))
      .min(1, { error: "at least one result" })
      .max(256),
  })
  .openapi("SubmitToolResultsRequest");

export const ListChatsQuery = z.object({
  /** Coder's search syntax: `archived:true|false` and free text matched in titles (src/chats/chat-search.ts). */
  q: z.string().optional(),
  archived: z.enum(["true", "false"]).optional(),
  /** `key:value`, repeatable. */
  label: z.union([z.string(), z.array(z.string())]).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  after_id: z.uuid().optional(),
  /** Rows of the ordered list to skip, after `after_id` when both are given. */
  offset: z.coerce.number().int().min(0).max(LIST_CHATS_MAX_OFFSET).optional(),
  /** Only the direct children (subagents) of this chat; the caller's own chats only, like every list. */
  parent_chat_id: z.uuid().optional(),
});

export const ChatParams = z.object({ chat: z.uuid() });
export const MessageParams = z.object({ chat: z.uuid(), message: MessageIdParam });
export const QueuedParams = z.object({ chat: z.uuid(), queued: MessageIdParam });
