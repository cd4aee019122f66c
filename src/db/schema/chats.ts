/**
 * The chat tables of the spec's "Core state machine". `chats` holds the execution state ("What
 * constitutes a chat's state?") next to the chat's metadata; `chat_messages` is the history,
 * `chat_queued_messages` the queue. Version columns and `revision` move only through the spec's
 * triggers (migrations/0001_triggers.sql); nothing but src/chats/transitions writes them.
 *
 * Not declared here, because drizzle cannot say it (migrations/0002_heartbeats_queue.sql):
 * - `chat_heartbeats`, an UNLOGGED table exactly as the spec writes it (see ./heartbeats.ts);
 * - the unique (chat_id, position) constraint on the queue, DEFERRABLE so one statement can shift
 *   positions and keep them contiguous.
 */
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { ChatStatus } from "../../chatstate/states";
import type { TitleSource } from "../../chatstate/rules";
import { organizations, users } from "./auth";

/** One part of a message's content (docs/api.md `ChatMessagePart`). */
export type ChatMessagePart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool-call"; tool_call_id: string; tool_name: string; args: unknown }
  | { type: "tool-result"; tool_call_id: string; tool_name: string; result: unknown; is_error: boolean }
  | { type: "file"; file_id: string; media_type: string; name: string }
  /** Lines of a file the user points at (Coder's diff comments): the model reads them as text. */
  | { type: "file-reference"; file_name: string; start_line: number; end_line: number; content: string }
  /**
   * A tool the provider ran itself (web search, src/llm/provider-tools.ts): never executed here,
   * never pending. `provider` is the family whose wire can take it back ("openai", "anthropic");
   * `args` and `result` are as that provider's AI SDK reported them, opaque replay data included.
   */
  | { type: "provider-tool-call"; tool_call_id: string; tool_name: string; args: unknown; provider: string }
  | { type: "provider-tool-result"; tool_call_id: string; tool_name: string; result: unknown; is_error: boolean; provider: string }
  /** A web page the response drew on (a search result or a citation), once per URL per message. */
  | { type: "source"; url: string; title?: string };

/** One hook context row waiting with a queued message. */
export interface QueuedHookContext {
  content: ChatMessagePart[];
  model_only: boolean;
}

export type ChatMessageRole = "system" | "user" | "assistant" | "tool";

/** A client-executed tool the chat was created with (docs/api.md `unsafe_dynamic_tools`). */
export interface DynamicToolDefinition {
  name: string;
  description?: string;
  input_schema?: unknown;
  /** The client's word that the tool only reads: plan mode offers it (docs/plan-mode.md). */
  read_only?: boolean;
}

/**
 * What FinishError knows about the error beyond its message (the stream's `error` event carries
 * it). Null for errors that are not a model call's (no model configured, a reconciled state).
 */
/** Coder's ChatClientType: a chat created from a browser app, or through the API by anything else. */
export const CHAT_CLIENT_TYPES = ["ui", "api"] as const;
export type ChatClientType = (typeof CHAT_CLIENT_TYPES)[number];

export interface LastErrorDetail {
  kind: string;
  provider: string | null;
  retryable: boolean;
  status_code: number | null;
  detail: string | null;
}

/**
 * What one assistant step cost, as the provider reported it. `input_tokens` is the prompt's size:
 * the automatic compaction trigger reads it from the latest step (src/llm/compaction/).
 */
export interface MessageUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  reasoning_tokens: number | null;
  cached_input_tokens: number | null;
}

/** The retry payload sent to clients (spec: "retry_state ... a JSONB object"). Opaque to the store. */
export type RetryState = Record<string, unknown>;

const versionColumn = () => bigint({ mode: "number" }).notNull().default(0);

export const chats = pgTable(
  "chats",
  {
    id: uuid().primaryKey().defaultRandom(),
    organizationId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    ownerId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Null for a root chat. */
    parentChatId: uuid().references((): AnyPgColumn => chats.id, { onDelete: "cascade" }),
    /** The family's root; null for the root itself. */
    rootChatId: uuid().references((): AnyPgColumn => chats.id, { onDelete: "cascade" }),

    // Execution state.
    status: text().$type<ChatStatus>().notNull(),
    archived: boolean().notNull().default(false),
    /** When `archived` last turned true; set and cleared by a trigger (migration 0010). The retention purge counts from it. */
    archivedAt: timestamp({ withTimezone: true }),
    workerId: uuid(),
    runnerId: uuid(),
    /** "last error message from the agent loop". */
    lastError: text(),
    /** Structured companion of last_error; set and cleared with it. */
    lastErrorDetail: jsonb().$type<LastErrorDetail>(),
    retryState: jsonb().$type<RetryState>(),
    snapshotVersion: versionColumn(),
    historyVersion: versionColumn(),
    queueVersion: versionColumn(),
    generationAttempt: versionColumn(),
    retryStateVersion: versionColumn(),
    requiresActionDeadlineAt: timestamp({ withTimezone: true }),
    /** One-shot manual compaction request (spec "Manual compaction"). */
    compactionRequestedAt: timestamp({ withTimezone: true }),

    // Metadata.
    title: text().notNull(),
    titleSource: text().$type<TitleSource>().notNull(),
    titleUpdatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    labels: jsonb().$type<Record<string, string>>().notNull().default({}),
    /** 0: not pinned; pinned chats sort by ascending pin_order. */
    pinOrder: integer().notNull().default(0),
    /** The owner turned debug runs on (docs/debug-runs.md): the chat's model calls are recorded. */
    debugRuns: boolean().notNull().default(false),
    lastModelConfigId: uuid(),
    lastReasoningEffort: text(),
    /** The project whose memory a root chat shares; same organization (composite FK, migration 0005). */
    projectId: uuid(),
    systemPrompt: text(),
    unsafeDynamicTools: jsonb().$type<DynamicToolDefinition[]>(),
    /** The organization's MCP servers this chat uses (docs/mcp.md); checked on create and update. */
    mcpServerIds: jsonb().$type<string[]>().notNull().default([]),
    /** Plan mode (docs/plan-mode.md): the model plans with read-only tools only. */
    planMode: boolean().notNull().default(false),
    /**
     * Title calls started for this chat, on its first prompt or by the cron's retry; bounded
     * (TITLE_MAX_ATTEMPTS, docs/titles.md) so a chat whose model keeps failing is not called forever.
     */
    titleAttempts: integer().notNull().default(0),
    /** When the latest title call started; the cron retries a chat still without a title long after. */
    titleAttemptedAt: timestamp({ withTimezone: true }),
    /** A short summary of the chat so far, written in the background after a turn (docs/titles.md). */
    summary: text(),
    /** The turn status label: what the last turn did, in a few words (the chat list shows it). */
    lastTurnSummary: text(),
    summaryUpdatedAt: timestamp({ withTimezone: true }),
    /** The history_version the summary was made from: a late call never replaces a newer summary. */
    summaryHistoryVersion: bigint({ mode: "number" }),
    /** Where the chat was created: `ui` (a browser app said so) or `api` (everything else); Coder's client_type. */
    clientType: text().$type<ChatClientType>().notNull().default("api"),
    /**
     * The owner's read marker: the id of the newest message of the chat when the owner last opened
     * or closed its stream (0: none). An assistant message past it makes the chat unread (Chat.has_unread).
     */
    lastReadMessageId: bigint({ mode: "number" }).notNull().default(0),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("chats_status_check", sql`${t.status} IN ('waiting', 'running', 'interrupting', 'requires_action', 'error')`),
    check("chats_title_source_check", sql`${t.titleSource} IN ('fallback', 'generated', 'user')`),
    check("chats_client_type_check", sql`${t.clientType} IN ('ui', 'api')`),
    // The acquisition sweep: runnable statuses without a (fresh) owner.
    index("chats_status_worker_id_idx").on(t.status, t.workerId),
    // GET /chats: the caller's chats, newest first.
    index("chats_owner_id_created_at_idx").on(t.ownerId, t.createdAt.desc(), t.id.desc()),
    // An organization's usage and cost (src/chats/cost.ts).
    index("chats_organization_id_idx").on(t.organizationId),
    index("chats_root_chat_id_idx").on(t.rootChatId),
    index("chats_parent_chat_id_idx").on(t.parentChatId),
    // Deleting a project clears its chats' project_id (the foreign key is in migration 0005).
    index("chats_project_id_idx").on(t.projectId).where(sql`${t.projectId} IS NOT NULL`),
    // The auto-archive candidate read and the retention purge (src/chats/auto-archive.ts, src/chats/purge.ts).
    index("chats_auto_archive_candidates_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.parentChatId} IS NULL AND NOT ${t.archived} AND ${t.pinOrder} = 0`),
    index("chats_archived_roots_idx").on(t.archivedAt, t.id).where(sql`${t.parentChatId} IS NULL AND ${t.archived}`),
    // The cron's title retry (src/cron/titles.ts): root chats still on a fallback title.
    index("chats_fallback_title_roots_idx").on(t.createdAt).where(sql`${t.parentChatId} IS NULL AND ${t.titleSource} = 'fallback'`),
  ],
);

export const chatMessages = pgTable(
  "chat_messages",
  {
    /**
     * From one global sequence, so it is also insertion order: history is ordered by it, and order
     * is total even within one statement (it was `seq` before migration 0021 made it the id).
     */
    id: bigserial({ mode: "number" }).primaryKey(),
    // No other foreign keys on purpose: an ON DELETE SET NULL would update message rows outside a
    // transition, and the revision trigger would then move history_version without a snapshot bump.
    chatId: uuid()
      .notNull()
      .references(() => chats.id, { onDelete: "cascade" }),
    role: text().$type<ChatMessageRole>().notNull(),
    content: jsonb().$type<ChatMessagePart[]>().notNull(),
    /** Assigned by trigger only (spec "Message revisions and history version"). */
    revision: bigint({ mode: "number" }),
    /** The queue row this message was promoted from; null for every other message. */
    queuedMessageId: bigint({ mode: "number" }),
    modelConfigId: uuid(),
    reasoningEffort: text(),
    createdBy: uuid(),
    /** Soft delete: EditMessage marks the truncated suffix; deleted rows leave active history. */
    deleted: boolean().notNull().default(false),
    /** Hidden from the UI, visible to the model (compaction summaries, the clear sentinel, replays). */
    modelOnly: boolean().notNull().default(false),
    /** Part of a compaction or clear boundary (the triplet); prompts start at the newest one. */
    compressed: boolean().notNull().default(false),
    /** The provider's usage figures of an assistant step; null for every other row. */
    usage: jsonb().$type<MessageUsage>(),
    /**
     * What the step cost in US dollars, exact (numeric), priced with its model config's prices when
     * it was committed; null when unpriced. Kept when prices change (docs/usage-cost.md).
     */
    costUsd: numeric(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("chat_messages_role_check", sql`${t.role} IN ('system', 'user', 'assistant', 'tool')`),
    check("chat_messages_content_is_array", sql`jsonb_typeof(${t.content}) = 'array'`),
    uniqueIndex("chat_messages_chat_id_id_idx").on(t.chatId, t.id),
    // Active history and its tail (the last assistant message onwards).
    index("chat_messages_active_idx").on(t.chatId, t.role, t.id).where(sql`NOT ${t.deleted}`),
    // "The newest non-deleted message in its family" (auto-archive).
    index("chat_messages_chat_id_created_at_idx").on(t.chatId, t.createdAt).where(sql`NOT ${t.deleted}`),
    // Usage and cost reads (src/chats/cost.ts): a chat's steps, by time; edited-away steps count too.
    index("chat_messages_usage_idx").on(t.chatId, t.createdAt).where(sql`${t.usage} IS NOT NULL`),
    check("chat_messages_cost_usd_check", sql`${t.costUsd} >= 0`),
  ],
);

export const chatQueuedMessages = pgTable(
  "chat_queued_messages",
  {
    /** From a sequence of its own: the order messages were queued in, not the queue position. */
    id: bigserial({ mode: "number" }).primaryKey(),
    chatId: uuid()
      .notNull()
      .references(() => chats.id, { onDelete: "cascade" }),
    /** 0 is the head; positions stay contiguous 0..n-1 (unique, deferrable: see the file header). */
    position: integer().notNull(),
    content: jsonb().$type<ChatMessagePart[]>().notNull(),
    modelConfigId: uuid(),
    reasoningEffort: text(),
    createdBy: uuid().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Context a lifecycle hook returned at submission, inserted after the message when promoted (docs/hooks.md). */
    hookContext: jsonb().$type<QueuedHookContext[]>(),
  },
  (t) => [
    check("chat_queued_messages_position_check", sql`${t.position} >= 0`),
    check("chat_queued_messages_content_is_array", sql`jsonb_typeof(${t.content}) = 'array'`),
    check("chat_queued_messages_hook_context_is_array", sql`${t.hookContext} IS NULL OR jsonb_typeof(${t.hookContext}) = 'array'`),
  ],
);

export type ChatRow = typeof chats.$inferSelect;
export type ChatMessageRow = typeof chatMessages.$inferSelect;
export type ChatQueuedMessageRow = typeof chatQueuedMessages.$inferSelect;
