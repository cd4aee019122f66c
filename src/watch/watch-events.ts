/**
 * The chat list watch's events (docs/api.md "Chat list watch"): each frame is one JSON object
 * `{kind, chat}` with the whole Chat as GET /chats lists it, as Coder's `ChatWatchEvent`, plus
 * `tool_calls` on `action_required` (what the chat waits on its client for). The kinds
 * are Coder's; which one a change is sent as is decided here, from what the watcher was last sent
 * about that chat, so a notification and the catch-up poll classify a change the same way.
 */
import type { ChatWire } from "../wire/chat-wire";
import type { PendingToolCall } from "../wire/stream-events";

export const CHAT_WATCH_EVENT_KINDS = ["created", "status_change", "action_required", "title_change", "summary_change", "deleted"] as const;

export type ChatWatchEventKind = (typeof CHAT_WATCH_EVENT_KINDS)[number];

/** How long before a watch opened a chat it first hears of still counts as new: the database's and the object's clocks differ. */
export const CREATED_SLACK_MS = 2_000;

export interface ChatWatchEvent {
  kind: ChatWatchEventKind;
  chat: ChatWire;
  /** On `action_required` only: the pending client tool calls, `args` a JSON string (as /stream's). */
  tool_calls?: PendingToolCall[];
  /**
   * On `deleted` only, when the chat no longer exists (or its owner left its organization) rather
   * than was archived; `chat` is the last one sent. Coder's kinds have no hard delete: its clients
   * read `deleted` as "leaves the list", which is right for both, and ignore the extra field.
   */
  gone?: true;
}

/**
 * Fields every transition moves (versions, the worker holding the chat, timestamps of the row) and
 * which no chat list shows: a change in these alone is not an event, so a turn's steps do not send
 * the whole Chat to every watcher each time.
 */
const UNLISTED_FIELDS: readonly (keyof ChatWire)[] = [
  "snapshot_version",
  "history_version",
  "queue_version",
  "retry_state_version",
  "generation_attempt",
  "retry_state",
  "requires_action_deadline_at",
  "worker_id",
  "updated_at",
];

/** The chat as a list shows it: equal keys, nothing for a watcher to hear. */
export function listedKey(chat: ChatWire): string {
  const listed: Record<string, unknown> = { ...chat };
  for (const field of UNLISTED_FIELDS) delete listed[field];
  return JSON.stringify(listed);
}

/**
 * Whether the chat newly waits on its client: it entered requires_action, or (its history moved)
 * it waits on another round of calls. history_version is unlisted, so the round counts here.
 */
function newlyRequiresAction(before: ChatWire | undefined, after: ChatWire): boolean {
  if (after.status !== "requires_action") return false;
  return before === undefined || before.status !== "requires_action" || before.history_version !== after.history_version;
}

/**
 * The events that take a watcher from `before` (what it was last sent, if anything) to `after`.
 * Archiving is `deleted` and unarchiving `created`, as Coder's sidebar reads them (an archived chat
 * leaves the default list). A change with no kind of its own in Coder's list (plan mode, labels, pin
 * order, the last error) is `status_change`, Coder's catch-all for "this chat changed, here it is".
 * `since` is when the watcher started: a chat it never heard of that was created after (or just
 * before: clocks differ) is `created`; an older one it first hears of is `status_change`, which a
 * client applies the same way (it replaces the chat in its list, or adds it). A chat that newly
 * waits on its client's tools is `action_required` instead of `status_change`, as Coder publishes
 * it (the event carries the whole chat too, so a list applies it the same way).
 */
export function watchEventKinds(before: ChatWire | undefined, after: ChatWire, since: number): ChatWatchEventKind[] {
  if (before === undefined) {
    if (after.archived) return ["deleted"];
    const awaiting = newlyRequiresAction(before, after);
    if (Date.parse(after.created_at) >= since - CREATED_SLACK_MS) return awaiting ? ["created", "action_required"] : ["created"];
    return awaiting ? ["action_required"] : ["status_change"];
  }
  if (!before.archived && after.archived) return ["deleted"];
  if (before.archived && !after.archived) return ["created"];
  const awaitsClient = newlyRequiresAction(before, after);
  if (!awaitsClient && listedKey(before) === listedKey(after)) return [];
  const kinds: ChatWatchEventKind[] = [];
  const titled = before.title !== after.title || before.title_source !== after.title_source;
  const summarized = before.summary !== after.summary || before.last_turn_summary !== after.last_turn_summary;
  if (awaitsClient) kinds.push("action_required");
  else if (before.status !== after.status || (!titled && !summarized)) kinds.push("status_change");
  if (titled) kinds.push("title_change");
  if (summarized) kinds.push("summary_change");
  return kinds;
}
