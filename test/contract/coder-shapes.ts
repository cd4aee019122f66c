/**
 * Coder's chat wire, recorded as zod schemas: what Coder's own clients decode from
 * `/api/v2/chats`. Written in this project's words from Coder's published types at one commit
 * (CODER_COMMIT): `codersdk/chats.go` (the Go client its CLI uses; json tags, types, and the
 * status code each method requires) and `site/src/api/typesGenerated.ts` (the web UI's types,
 * generated from the same Go structs).
 *
 * How strict, and why:
 * - A field Coder's TypeScript type requires is required here; a field it marks optional (`?`)
 *   may be absent or null (Go reads null into a pointer or a zero value without complaint).
 * - Types are exact: Go's decoder fails on a string where an int64 is expected (message and
 *   queued-message ids, `deleted_message_ids`), on a bool where a string type is expected
 *   (`plan_mode`), and on a non-RFC 3339 time. The web UI computes with ids (`b.id - a.id`).
 * - Enums (ChatStatus, ChatErrorKind, stream event types, watch kinds, message part types, roles,
 *   client types) are closed: a value outside Coder's list is a mismatch its UI cannot render.
 * - Unknown extra fields are allowed: neither client rejects them.
 */
import { z } from "zod";

/** The coder/coder commit whose `codersdk/chats.go` and `site/src/api/typesGenerated.ts` these follow. */
export const CODER_COMMIT = "004053e8bda02adca189fadb32f213700e9ab90b";

const uuid = z.uuid();
/** Go's time.Time decodes RFC 3339 only. */
const time = z.iso.datetime({ offset: true });
/** An int64 on Go's side: a JSON number without a fraction. */
const int = z.number().int();
/** Optional in Coder's types: absent, or null (which both clients read as absent). */
const opt = <T extends z.ZodType>(t: T) => t.nullish();

export const ChatStatus = z.enum(["waiting", "running", "error", "requires_action", "interrupting"]);
export const ChatClientType = z.enum(["ui", "api"]);
export const ChatMode = z.enum(["computer_use", "explore", "orchestrator"]);
export const ChatPlanMode = z.enum(["plan"]);
export const ChatMessageRole = z.enum(["system", "user", "assistant", "tool"]);
export const ChatErrorKind = z.enum([
  "generic",
  "overloaded",
  "rate_limit",
  "timeout",
  "stream_silence_timeout",
  "auth",
  "config",
  "usage_limit",
  "missing_key",
  "provider_disabled",
  "content_filter",
  "hook_dispatch_failed",
  "hook_denied",
]);
export const ChatStreamEventType = z.enum([
  "message_part",
  "message",
  "status",
  "error",
  "queue_update",
  "retry",
  "action_required",
  "preview_reset",
  "history_reset",
]);
export const ChatWatchEventKind = z.enum([
  "status_change",
  "summary_change",
  "chat_summary_change",
  "title_change",
  "created",
  "deleted",
  "diff_status_change",
  "action_required",
  "context_dirty",
]);

export const ChatError = z.object({
  message: z.string(),
  detail: opt(z.string()),
  kind: opt(ChatErrorKind),
  provider: opt(z.string()),
  retryable: z.boolean(),
  status_code: opt(int),
});

/**
 * One part of a message, tagged by `type` (Coder's ChatMessagePart union). The fields each
 * variant requires follow the generated TypeScript; streamed parts use the same union, with the
 * deltas in `text` (text, reasoning), `args_delta` (tool-call) and `result_delta` (tool-result).
 */
export const ChatMessagePart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("reasoning"), text: z.string(), created_at: opt(time), completed_at: opt(time) }),
  z.object({
    type: z.literal("tool-call"),
    tool_call_id: opt(z.string()),
    tool_name: opt(z.string()),
    mcp_server_config_id: opt(uuid),
    // json.RawMessage on Go's side: any JSON value.
    args: z.unknown().optional(),
    args_delta: opt(z.string()),
    parsed_commands: opt(z.array(z.array(z.string()))),
    provider_executed: opt(z.boolean()),
    hook_rewritten: opt(z.boolean()),
    created_at: opt(time),
  }),
  z.object({
    type: z.literal("tool-result"),
    tool_call_id: opt(z.string()),
    tool_name: opt(z.string()),
    mcp_server_config_id: opt(uuid),
    result: z.unknown().optional(),
    result_delta: opt(z.string()),
    result_reset: opt(z.boolean()),
    is_error: opt(z.boolean()),
    is_media: opt(z.boolean()),
    provider_executed: opt(z.boolean()),
    created_at: opt(time),
  }),
  z.object({ type: z.literal("source"), url: z.string(), source_id: opt(z.string()), title: opt(z.string()) }),
  z.object({ type: z.literal("file"), media_type: z.string(), name: opt(z.string()), data: opt(z.string()), file_id: opt(uuid) }),
  z.object({ type: z.literal("file-reference"), file_name: z.string(), start_line: int, end_line: int, content: z.string() }),
  z.object({
    type: z.literal("context-file"),
    context_file_path: z.string(),
    context_file_truncated: opt(z.boolean()),
    context_file_agent_id: opt(uuid),
  }),
  z.object({ type: z.literal("skill"), skill_name: z.string(), skill_description: opt(z.string()) }),
  z.object({ type: z.literal("hook-notice"), text: z.string() }),
]);

export const ChatMessageUsage = z.object({
  input_tokens: opt(int),
  output_tokens: opt(int),
  total_tokens: opt(int),
  reasoning_tokens: opt(int),
  cache_creation_tokens: opt(int),
  cache_read_tokens: opt(int),
  context_limit: opt(int),
});

export const ChatMessage = z.object({
  id: int,
  chat_id: uuid,
  created_by: opt(uuid),
  model_config_id: opt(uuid),
  created_at: time,
  role: ChatMessageRole,
  content: opt(z.array(ChatMessagePart)),
  usage: opt(ChatMessageUsage),
});

export const ChatQueuedMessage = z.object({
  id: int,
  chat_id: uuid,
  model_config_id: opt(uuid),
  content: z.array(ChatMessagePart),
  created_at: time,
});

const ChatFileMetadata = z.object({
  id: uuid,
  owner_id: uuid,
  organization_id: uuid,
  name: z.string(),
  mime_type: z.string(),
  size_bytes: int,
  created_at: time,
});

interface ChatShape {
  children: ChatShape[];
  [key: string]: unknown;
}

export const Chat: z.ZodType<ChatShape> = z.object({
  id: uuid,
  organization_id: uuid,
  owner_id: uuid,
  owner_username: opt(z.string()),
  owner_name: opt(z.string()),
  workspace_id: opt(uuid),
  build_id: opt(uuid),
  agent_id: opt(uuid),
  parent_chat_id: opt(uuid),
  root_chat_id: opt(uuid),
  last_model_config_id: uuid,
  last_reasoning_effort: opt(z.string()),
  title: z.string(),
  status: ChatStatus,
  mode: opt(ChatMode),
  // Go's ChatPlanMode is a string type (omitempty): "plan", or "" / absent when off.
  plan_mode: opt(z.union([ChatPlanMode, z.literal("")])),
  last_error: opt(ChatError),
  last_turn_summary: z.string().nullable(),
  summary: z.string().nullable(),
  diff_status: z.unknown().optional(),
  created_at: time,
  updated_at: time,
  archived: z.boolean(),
  shared: z.boolean(),
  pin_order: int,
  mcp_server_ids: z.array(uuid),
  labels: z.record(z.string(), z.string()),
  files: opt(z.array(ChatFileMetadata)),
  has_unread: z.boolean(),
  context: z.unknown().optional(),
  queued_for_capacity: opt(z.boolean()),
  warnings: opt(z.array(z.string())),
  client_type: ChatClientType,
  get children() {
    return z.array(Chat);
  },
});

export const ChatStreamToolCall = z.object({
  tool_call_id: z.string(),
  tool_name: z.string(),
  // A JSON document as a string: Coder's dynamic-tool handlers unmarshal it themselves.
  args: z.string(),
});

export const ChatStreamRetry = z.object({
  attempt: int,
  delay_ms: int,
  error: z.string(),
  kind: opt(ChatErrorKind),
  provider: opt(z.string()),
  status_code: opt(int),
  retrying_at: time,
});

export const ChatStreamMessagePart = z.object({
  role: opt(ChatMessageRole),
  part: ChatMessagePart,
  history_version: opt(int),
  generation_attempt: opt(int),
  seq: opt(int),
});

/** The payload field each event type must carry for Coder's stream handling to read it. */
const PAYLOAD_OF: Partial<Record<z.infer<typeof ChatStreamEventType>, string>> = {
  message: "message",
  message_part: "message_part",
  status: "status",
  error: "error",
  retry: "retry",
  action_required: "action_required",
};

export const ChatStreamEvent = z
  .object({
    type: ChatStreamEventType,
    // Required in the TypeScript type; Go's StreamChat fills a missing one in with the chat's id.
    chat_id: opt(uuid),
    message: opt(ChatMessage),
    message_part: opt(ChatStreamMessagePart),
    status: opt(z.object({ status: ChatStatus })),
    error: opt(ChatError),
    retry: opt(ChatStreamRetry),
    queued_messages: opt(z.array(ChatQueuedMessage)),
    action_required: opt(z.object({ tool_calls: z.array(ChatStreamToolCall) })),
  })
  .superRefine((event, ctx) => {
    const field = PAYLOAD_OF[event.type];
    if (field && (event as Record<string, unknown>)[field] == null) {
      ctx.addIssue({ code: "custom", path: [field], message: `a ${event.type} event carries ${field}` });
    }
  });

/** A /stream frame: Go's StreamChat reads each WebSocket message as an array of events. */
export const ChatStreamFrame = z.array(ChatStreamEvent);

/** A /chats/watch frame: one event per WebSocket message (Go's WatchChats, the UI's OneWayWebSocket). */
export const ChatWatchEvent = z.object({
  kind: ChatWatchEventKind,
  chat: Chat,
  tool_calls: opt(z.array(ChatStreamToolCall)),
});

export const CreateChatMessageResponse = z.object({
  message: opt(ChatMessage),
  messages: opt(z.array(ChatMessage)),
  queued_message: opt(ChatQueuedMessage),
  queued: z.boolean(),
  warnings: opt(z.array(z.string())),
});

export const EditChatMessageResponse = z.object({
  message: ChatMessage,
  messages: opt(z.array(ChatMessage)),
  deleted_message_ids: opt(z.array(int)),
  warnings: opt(z.array(z.string())),
});

export const ChatMessagesResponse = z.object({
  messages: z.array(ChatMessage),
  queued_messages: z.array(ChatQueuedMessage),
  has_more: z.boolean(),
});

export const ChatPromptsResponse = z.object({ prompts: z.array(z.object({ id: int, text: z.string() })) });

export const ChatCost = z.object({
  chat_id: uuid,
  total_cost_micros: int,
  request_count: int,
  unpriced_request_count: int,
});

export const ChatModel = z.object({
  id: uuid,
  organization_id: uuid,
  ai_provider_id: uuid,
  model: z.string(),
  display_name: z.string(),
  enabled: z.boolean(),
  is_default: z.boolean(),
  context_limit: int,
  compression_threshold: int,
  model_config: z.unknown().optional(),
  reasoning_efforts: opt(z.array(z.string())),
  created_at: time,
  updated_at: time,
});

export const OrganizationChatModelsResponse = z.object({
  models: z.array(ChatModel),
  providers: z.array(
    z.object({
      id: uuid,
      type: z.string(),
      display_name: z.string(),
      icon: z.string(),
      enabled: z.boolean(),
      has_api_key: z.boolean(),
      has_user_api_key: z.boolean(),
      has_effective_api_key: z.boolean(),
      allow_user_api_key: z.boolean(),
      available: z.boolean(),
      unavailable_reason: opt(z.enum(["missing_api_key", "fetch_failed", "user_api_key_required"])),
    }),
  ),
  unsupported_providers: z.array(z.object({ provider: z.string(), display_name: z.string() })),
});

/** codersdk's error body (`Response`): what ReadBodyAsError decodes from any non-expected status. */
export const CoderResponse = z.object({
  message: z.string(),
  detail: opt(z.string()),
  validations: opt(z.array(z.object({ field: z.string(), detail: z.string() }))),
});

/**
 * The 409 message for a chat in an invalid state: Coder's own server tests require this exact
 * `message`, and its clients show it as is.
 */
export const CODER_INVALID_STATE_MESSAGE = "Chat is in an invalid state.";
