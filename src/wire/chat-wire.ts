/** Rows to the snake_case wire shapes of docs/api.md (`Chat`, `ChatMessage`, `ChatQueuedMessage`). */
import type { ChatClientType, ChatMessageRole, ChatMessageRow, ChatQueuedMessageRow, ChatRow, RetryState } from "../db/schema/chats";
import { type ChatErrorWire, errorPayloadOf } from "./chat-error";
import { type ChatMessagePartWire, partsToWire } from "./message-part";
import { type ChatMessageUsageWire, usageToWire } from "./usage-wire";

export interface ChatWire {
  id: string;
  organization_id: string;
  owner_id: string;
  parent_chat_id: string | null;
  root_chat_id: string | null;
  title: string;
  title_source: ChatRow["titleSource"];
  title_updated_at: string;
  /** A short summary of the chat so far; null until the first turn's summary call answered (docs/titles.md). */
  summary: string | null;
  /** The turn status label: what the last turn did, in a few words. */
  last_turn_summary: string | null;
  summary_updated_at: string | null;
  status: ChatRow["status"];
  archived: boolean;
  /** Coder's `ChatError`: the failure that put the chat in `error`; null when none. */
  last_error: ChatErrorWire | null;
  labels: Record<string, string>;
  pin_order: number;
  last_model_config_id: string | null;
  last_reasoning_effort: string | null;
  project_id: string | null;
  mcp_server_ids: string[];
  /** Plan mode (docs/plan-mode.md), as Coder's string: `"plan"` when on, `""` when off. */
  plan_mode: PlanModeWire;
  snapshot_version: number;
  history_version: number;
  queue_version: number;
  retry_state_version: number;
  generation_attempt: number;
  retry_state: RetryState | null;
  requires_action_deadline_at: string | null;
  worker_id: string | null;
  created_at: string;
  updated_at: string;
  /** Coder's: an assistant message arrived since the owner last opened or closed the chat's stream. */
  has_unread: boolean;
  /** Coder's: `ui` when a browser app created the chat, else `api`. */
  client_type: ChatClientType;
  /** Coder's: the chat is shared with other users. Never here: chats belong to their owner alone. */
  shared: false;
  /** Coder's: a root chat's subagents, newest first; always empty for a subagent. */
  children: ChildChatWire[];
}

/** Coder's `ChatPlanMode`: a string, empty when plan mode is off. */
export type PlanModeWire = "plan" | "";

export const planModeToWire = (on: boolean): PlanModeWire => (on ? "plan" : "");

/** A subagent inside its parent's `children`: a whole chat, whose own children list is empty. */
export type ChildChatWire = Omit<ChatWire, "children"> & { children: never[] };

/** What a chat's wire shape adds to its row: read from Postgres beside it (src/chats/chat-views.ts). */
export interface ChatWireExtras {
  hasUnread: boolean;
  children: readonly { chat: ChatRow; hasUnread: boolean }[];
}

/** A chat that has just been created: nothing to read yet, no subagents yet. */
export const NEW_CHAT: ChatWireExtras = { hasUnread: false, children: [] };

/** Message and queued-message ids are JSON integers (int64 in the database, below 2^53 in practice). */
export interface ChatMessageWire {
  /** Insertion order: a later message has a larger id. */
  id: number;
  chat_id: string;
  role: ChatMessageRole;
  content: ChatMessagePartWire[];
  revision: number;
  queued_message_id: number | null;
  model_config_id: string | null;
  reasoning_effort: string | null;
  created_by: string | null;
  created_at: string;
  /** A model step's token counts and cost; null for every other message. */
  usage: ChatMessageUsageWire | null;
  /** Only in listings that include soft-deleted rows. */
  deleted?: boolean;
}

export interface ChatQueuedMessageWire {
  id: number;
  chat_id: string;
  position: number;
  content: ChatMessagePartWire[];
  model_config_id: string | null;
  reasoning_effort: string | null;
  created_by: string;
  created_at: string;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export function chatToWire(c: ChatRow, extras: ChatWireExtras): ChatWire {
  return {
    ...chatFields(c, extras.hasUnread),
    children: extras.children.map((child) => ({ ...chatFields(child.chat, child.hasUnread), children: [] })),
  };
}

function chatFields(c: ChatRow, hasUnread: boolean): Omit<ChatWire, "children"> {
  return {
    id: c.id,
    organization_id: c.organizationId,
    owner_id: c.ownerId,
    parent_chat_id: c.parentChatId,
    root_chat_id: c.rootChatId,
    title: c.title,
    title_source: c.titleSource,
    title_updated_at: c.titleUpdatedAt.toISOString(),
    summary: c.summary,
    last_turn_summary: c.lastTurnSummary,
    summary_updated_at: iso(c.summaryUpdatedAt),
    status: c.status,
    archived: c.archived,
    last_error: errorPayloadOf(c.lastError, c.lastErrorDetail),
    labels: c.labels,
    pin_order: c.pinOrder,
    last_model_config_id: c.lastModelConfigId,
    last_reasoning_effort: c.lastReasoningEffort,
    project_id: c.projectId,
    mcp_server_ids: c.mcpServerIds,
    plan_mode: planModeToWire(c.planMode),
    snapshot_version: c.snapshotVersion,
    history_version: c.historyVersion,
    queue_version: c.queueVersion,
    retry_state_version: c.retryStateVersion,
    generation_attempt: c.generationAttempt,
    retry_state: c.retryState,
    requires_action_deadline_at: iso(c.requiresActionDeadlineAt),
    worker_id: c.workerId,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    has_unread: hasUnread,
    client_type: c.clientType,
    shared: false,
  };
}

export function messageToWire(m: ChatMessageRow, options: { withDeleted?: boolean } = {}): ChatMessageWire {
  return {
    id: m.id,
    chat_id: m.chatId,
    role: m.role,
    content: partsToWire(m.content),
    // Always set once inserted: the trigger assigns it.
    revision: m.revision ?? 0,
    queued_message_id: m.queuedMessageId,
    model_config_id: m.modelConfigId,
    reasoning_effort: m.reasoningEffort,
    created_by: m.createdBy,
    created_at: m.createdAt.toISOString(),
    usage: usageToWire(m),
    ...(options.withDeleted ? { deleted: m.deleted } : {}),
  };
}

export function queuedToWire(q: ChatQueuedMessageRow): ChatQueuedMessageWire {
  return {
    id: q.id,
    chat_id: q.chatId,
    position: q.position,
    content: partsToWire(q.content),
    model_config_id: q.modelConfigId,
    reasoning_effort: q.reasoningEffort,
    created_by: q.createdBy,
    created_at: q.createdAt.toISOString(),
  };
}
