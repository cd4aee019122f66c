/**
 * Example frames in Coder's wire format at CODER_COMMIT, written for this suite from Coder's
 * published types (not captured from a Coder server): what a turn looks like on `/stream` and
 * what the chat list hears on `/chats/watch`. shapes.test.ts checks that the recorded schemas
 * accept every one of them and refuse each of the breakages listed beside them, so the schemas
 * themselves can be trusted when the session judges the service with them.
 */
const CHAT = "6f1d2c8e-0a4b-4c1e-9d7a-2b3c4d5e6f70";
const ORG = "0b7e4a52-1d3c-4f8e-a6b9-c2d1e0f9a8b7";
const OWNER = "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f";
const MODEL = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const AT = "2026-05-04T10:11:12.345Z";

export const exampleChat = {
  id: CHAT,
  organization_id: ORG,
  owner_id: OWNER,
  last_model_config_id: MODEL,
  title: "Fix the flaky test",
  status: "running",
  last_turn_summary: null,
  summary: null,
  created_at: AT,
  updated_at: AT,
  archived: false,
  shared: false,
  pin_order: 0,
  mcp_server_ids: [],
  labels: {},
  has_unread: false,
  client_type: "api",
  children: [],
};

const userMessage = {
  id: 41,
  chat_id: CHAT,
  created_by: OWNER,
  model_config_id: MODEL,
  created_at: AT,
  role: "user",
  content: [{ type: "text", text: "why does it fail?" }],
};

/** One turn as `/stream` carries it: each element is one WebSocket frame (an array of events). */
export const streamFrames: unknown[][] = [
  [
    { type: "message", chat_id: CHAT, message: userMessage },
    { type: "status", chat_id: CHAT, status: { status: "running" } },
  ],
  [
    {
      type: "message_part",
      chat_id: CHAT,
      message_part: {
        role: "assistant",
        part: { type: "reasoning", text: "Looking at " },
        history_version: 3,
        generation_attempt: 1,
        seq: 1,
      },
    },
    {
      type: "message_part",
      chat_id: CHAT,
      message_part: { role: "assistant", part: { type: "text", text: "It races " }, history_version: 3, generation_attempt: 1, seq: 2 },
    },
    {
      type: "message_part",
      chat_id: CHAT,
      message_part: {
        role: "assistant",
        part: { type: "tool-call", tool_call_id: "call_1", tool_name: "read_file", args_delta: '{"path":' },
        seq: 3,
      },
    },
  ],
  [
    {
      type: "retry",
      chat_id: CHAT,
      retry: { attempt: 1, delay_ms: 400, error: "The provider is overloaded.", kind: "overloaded", status_code: 529, retrying_at: AT },
    },
    { type: "preview_reset", chat_id: CHAT },
  ],
  [
    {
      type: "action_required",
      chat_id: CHAT,
      action_required: { tool_calls: [{ tool_call_id: "call_2", tool_name: "ask_user", args: '{"question":"which branch?"}' }] },
    },
    { type: "status", chat_id: CHAT, status: { status: "requires_action" } },
  ],
  [
    {
      type: "queue_update",
      chat_id: CHAT,
      queued_messages: [{ id: 7, chat_id: CHAT, content: [{ type: "text", text: "next" }], created_at: AT }],
    },
  ],
  [
    {
      type: "message",
      chat_id: CHAT,
      message: {
        id: 42,
        chat_id: CHAT,
        created_at: AT,
        role: "assistant",
        content: [{ type: "text", text: "It races the timer." }],
        usage: { input_tokens: 12, output_tokens: 5 },
      },
    },
    { type: "status", chat_id: CHAT, status: { status: "waiting" } },
  ],
  [{ type: "history_reset", chat_id: CHAT }],
  // The terminal error, sent as an array frame like every other before the socket closes.
  [
    {
      type: "error",
      chat_id: CHAT,
      error: { message: "The model rejected the request.", kind: "generic", retryable: false, status_code: 400 },
    },
    { type: "status", chat_id: CHAT, status: { status: "error" } },
  ],
];

/** `/chats/watch`: one ChatWatchEvent per frame. */
export const watchFrames: unknown[] = [
  { kind: "created", chat: { ...exampleChat, status: "waiting" } },
  { kind: "status_change", chat: exampleChat },
  { kind: "title_change", chat: { ...exampleChat, title: "Flaky timer test" } },
  { kind: "summary_change", chat: { ...exampleChat, last_turn_summary: "Found the race" } },
  { kind: "chat_summary_change", chat: { ...exampleChat, summary: "The user asked why a test fails." } },
  {
    kind: "action_required",
    chat: { ...exampleChat, status: "requires_action" },
    tool_calls: [{ tool_call_id: "call_2", tool_name: "ask_user", args: "{}" }],
  },
  { kind: "deleted", chat: exampleChat },
];

/**
 * Changes that break one of Coder's clients, each with the field the schemas must name. They are
 * the differences this service had when the suite was written (issue #35), so the suite is known
 * to catch each of them.
 */
export const breakages: { name: string; socket: "stream" | "watch" | "chat"; frame: unknown; field: string }[] = [
  {
    name: "a UUID message id",
    socket: "stream",
    frame: [{ type: "message", chat_id: CHAT, message: { ...userMessage, id: "0b7e4a52-1d3c-4f8e-a6b9-c2d1e0f9a8b7" } }],
    field: "0.message.id",
  },
  {
    name: "a text-delta part",
    socket: "stream",
    frame: [{ type: "message_part", chat_id: CHAT, message_part: { role: "assistant", part: { type: "text-delta", delta: "x" } } }],
    field: "0.message_part.part.type",
  },
  { name: "a title_change stream event", socket: "stream", frame: [{ type: "title_change", chat_id: CHAT, title: {} }], field: "0.type" },
  {
    name: "an error object outside an array",
    socket: "stream",
    frame: { type: "error", chat_id: CHAT, error: { message: "x", retryable: false } },
    field: "(body)",
  },
  {
    name: "action_required args as an object",
    socket: "stream",
    frame: [{ type: "action_required", chat_id: CHAT, action_required: { tool_calls: [{ tool_call_id: "c", tool_name: "t", args: {} }] } }],
    field: "0.action_required.tool_calls.0.args",
  },
  {
    name: "an error kind outside ChatErrorKind",
    socket: "stream",
    frame: [{ type: "error", chat_id: CHAT, error: { message: "x", kind: "bad_request", retryable: false } }],
    field: "0.error.kind",
  },
  { name: "a message event without its message", socket: "stream", frame: [{ type: "message", chat_id: CHAT }], field: "0.message" },
  { name: "a chat without children", socket: "chat", frame: { ...exampleChat, children: undefined }, field: "children" },
  { name: "a chat without has_unread", socket: "chat", frame: { ...exampleChat, has_unread: undefined }, field: "has_unread" },
  { name: "plan_mode as a boolean", socket: "chat", frame: { ...exampleChat, plan_mode: false }, field: "plan_mode" },
  { name: "a status outside ChatStatus", socket: "chat", frame: { ...exampleChat, status: "pending" }, field: "status" },
  { name: "a watch frame as an array", socket: "watch", frame: [{ kind: "created", chat: exampleChat }], field: "(body)" },
  { name: "an unknown watch kind", socket: "watch", frame: { kind: "plan_mode_change", chat: exampleChat }, field: "kind" },
];
