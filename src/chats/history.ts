/**
 * Writes to chat_messages, and the rules about outstanding tool calls, implemented once:
 * - misc rule 2: "Any transition that inserts a new user message into active history must answer
 *   outstanding tool calls in active history before inserting the user message" — insertHistory
 *   puts synthetic cancellation results in front of every user message that needs them;
 * - misc rule 1 (via ChatTx.land) and ReconcileInvalidState: answerPendingToolCalls with
 *   dynamicOnly closes pending dynamic tool calls.
 * "Outstanding" is read from the active tail: the last active assistant message and what follows
 * it (the message that made the calls and the results answering them).
 */
import type { InsertedRows } from "./inserted-rows";
import { InsertedRange } from "./inserted-refs";
import { pendingToolCalls, syntheticCancellationResults, type ClassifiedState, type ToolCallPart } from "../chatstate/index";
import { InvalidTransitionInputError } from "./errors";
import { pgJson } from "../db/pg-safe";
import { messageFromRaw, type RawRow } from "../db/rows";
import type { ChatMessagePart, ChatMessageRole, ChatMessageRow, ChatRow, MessageUsage } from "../db/schema/chats";

/**
 * What these writes need of the locked chat they run on. ChatTx is the one implementation; the
 * interface lives here because ChatTx itself applies misc rule 1 through this file when it lands.
 */
export interface HistoryTx {
  readonly chatId: string;
  readonly chat: Readonly<Pick<ChatRow, "lastModelConfigId" | "unsafeDynamicTools">>;
  state(): ClassifiedState;
  query<R extends RawRow = RawRow>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /** The rows inserted so far and the active tail kept in step with them; queued INSERTs go through it. */
  readonly inserted: InsertedRows<NewMessage>;
  /** Before every chat_messages write: flushes staged flags the revision trigger would reorder. */
  beforeHistoryWrite(): Promise<void>;
}

/** A message a transition inserts. `revision` and `queued_message_id` are never the caller's. */
export interface NewMessage {
  role: ChatMessageRole;
  content: ChatMessagePart[];
  modelConfigId?: string | null;
  reasoningEffort?: string | null;
  createdBy?: string | null;
  /** Hidden from the UI, visible to the model. */
  modelOnly?: boolean;
  /** Part of a compaction or clear boundary. */
  compressed?: boolean;
  /** An assistant step's usage figures (the compaction trigger reads them). */
  usage?: MessageUsage | null;
  /** What the step cost, an exact dollar string (src/model-configs/pricing.ts); null when unpriced. */
  costUsd?: string | null;
}

const ROLES: readonly ChatMessageRole[] = ["system", "user", "assistant", "tool"];

/** The id of the newest active boundary row (compaction or clear), 0 when there is none. */
const LATEST_BOUNDARY_SQL = `coalesce((SELECT max(b.id) FROM chat_messages b WHERE b.chat_id = $1 AND NOT b.deleted AND b.compressed), 0)`;

const COLUMNS = [
  "chat_id",
  "role",
  "content",
  "model_config_id",
  "reasoning_effort",
  "created_by",
  "model_only",
  "compressed",
  "usage",
  "cost_usd",
] as const;

function assertInsertable(tx: HistoryTx, message: NewMessage): void {
  if (!ROLES.includes(message.role) || !Array.isArray(message.content)) {
    throw new InvalidTransitionInputError("insert", tx.state(), `a message needs a role of ${ROLES.join("|")} and an array of parts`);
  }
}

/** One multi-row INSERT; rows get their ids (and so their order) in the order given. */
export async function insertMessages(tx: HistoryTx, messages: readonly NewMessage[]): Promise<ChatMessageRow[]> {
  if (messages.length === 0) return [];
  for (const m of messages) assertInsertable(tx, m);
  await tx.beforeHistoryWrite();
  const { text, values } = insertStatement(tx, messages);
  const inserted = insertedRows(await tx.query(text, values));
  tx.inserted.arrived(inserted);
  return inserted;
}

/** History whose INSERT is queued (queueMessages, queueHistory). */
export interface QueuedHistory {
  /** The messages as they will be written, in order (synthetic cancellations included). */
  readonly written: readonly NewMessage[];
  /** The places of their rows among the transaction's inserted rows, resolved after COMMIT (inserted-refs.ts). */
  readonly rows: InsertedRange;
}

/**
 * insertMessages, with the INSERT riding in the transaction's next round trip (the commit write's,
 * for a transition whose last write it is). The rows come when it has gone out, before the
 * statement it went with answers; until then they are not in the transaction's inserted rows (their
 * count counts them, so their places are known), and the cached tail has them only once activeTail
 * has sent it. Pending tool calls are judged on them as written meanwhile (tailAsWritten).
 */
export async function queueMessages(tx: HistoryTx, messages: readonly NewMessage[]): Promise<QueuedHistory> {
  const from = tx.inserted.count;
  if (messages.length === 0) return { written: [], rows: new InsertedRange(from, from) };
  for (const m of messages) assertInsertable(tx, m);
  await tx.beforeHistoryWrite();
  const { text, values } = insertStatement(tx, messages);
  // Counted from here: the places are taken at once, whatever goes out first.
  const rows = new InsertedRange(tx.inserted.count, tx.inserted.count + messages.length);
  tx.inserted.queueInsert(text, values, messages, (raw) => tx.inserted.arrived(insertedRows(raw)));
  return { written: messages, rows };
}

const insertedRows = (rows: readonly RawRow[]) => rows.map(messageFromRaw).sort((a, b) => a.id - b.id);

function insertStatement(tx: HistoryTx, messages: readonly NewMessage[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const tuples = messages.map((m) => {
    const base = values.length;
    values.push(
      tx.chatId,
      m.role,
      pgJson(m.content),
      m.modelConfigId ?? null,
      m.reasoningEffort ?? null,
      m.createdBy ?? null,
      m.modelOnly ?? false,
      m.compressed ?? false,
      m.usage ? JSON.stringify(m.usage) : null,
      m.costUsd ?? null,
    );
    return `($${base + 1}, $${base + 2}, $${base + 3}::jsonb, $${base + 4}::uuid, $${base + 5}, $${base + 6}::uuid, $${base + 7}, $${base + 8}, $${base + 9}::jsonb, $${base + 10}::numeric)`;
  });
  return { text: `INSERT INTO chat_messages (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")} RETURNING *`, values };
}

type PartsOnly = { role: ChatMessageRole; content: readonly { type: string }[] };

/**
 * The active tail's roles and contents, queued INSERTs counted as written: what pending tool calls
 * are decided on. Memory has it when the tail is cached, or when an unsent message is an assistant
 * message (the tail starts at the last one); only otherwise is it read, and the read carries the
 * queued INSERT in its round trip.
 */
async function tailAsWritten(tx: HistoryTx): Promise<readonly PartsOnly[]> {
  const unsent = tx.inserted.unsent;
  const cached = tx.inserted.tail;
  if (cached !== undefined) return unsent.reduce<readonly PartsOnly[]>(advanceTail, cached);
  const lastAssistant = unsent.findLastIndex((m) => m.role === "assistant");
  if (lastAssistant >= 0) return unsent.slice(lastAssistant);
  return tx.inserted.activeTail();
}

function advanceTail<M extends PartsOnly>(tail: readonly PartsOnly[], message: M): PartsOnly[] {
  if (message.role === "assistant") return [message];
  return tail.length === 0 ? [] : [...tail, message];
}

export function dynamicToolNames(chat: Pick<ChatRow, "unsafeDynamicTools">): Set<string> {
  return new Set((chat.unsafeDynamicTools ?? []).map((tool) => tool.name));
}

/** One tool message per pending call, each holding that call's synthetic cancellation result. */
function cancellationMessages(tx: HistoryTx, pending: readonly ToolCallPart[], reason: string): NewMessage[] {
  return pending.map((call) => ({
    role: "tool",
    content: syntheticCancellationResults([call], reason) as ChatMessagePart[],
    modelConfigId: tx.chat.lastModelConfigId,
  }));
}

/**
 * Inserts `messages` into active history, answering outstanding tool calls with synthetic
 * cancellation results in front of each user message that has any (misc rule 2). Returns every
 * inserted row in order, synthetic ones included.
 */
export async function insertHistory(tx: HistoryTx, messages: readonly NewMessage[], cancelReason: string): Promise<ChatMessageRow[]> {
  return insertMessages(tx, await withCancellations(tx, messages, cancelReason));
}

/** insertHistory with queueMessages. */
export async function queueHistory(tx: HistoryTx, messages: readonly NewMessage[], cancelReason: string): Promise<QueuedHistory> {
  return queueMessages(tx, await withCancellations(tx, messages, cancelReason));
}

/** `messages` with a synthetic cancellation in front of each user message that has outstanding tool calls. */
async function withCancellations(tx: HistoryTx, messages: readonly NewMessage[], cancelReason: string): Promise<NewMessage[]> {
  if (messages.length === 0) return [];
  let tail: PartsOnly[] = messages.some((m) => m.role === "user") ? [...(await tailAsWritten(tx))] : [];
  const rows: NewMessage[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      for (const synthetic of cancellationMessages(tx, pendingToolCalls(tail), cancelReason)) {
        rows.push(synthetic);
        tail = advanceTail(tail, synthetic);
      }
    }
    rows.push(message);
    tail = advanceTail(tail, message);
  }
  return rows;
}

/** Pending tool calls of the active tail; with dynamicOnly, only the chat's dynamic (client) tools. */
export async function pendingCalls(tx: HistoryTx, dynamicOnly: boolean): Promise<ToolCallPart[]> {
  const pending = pendingToolCalls(await tailAsWritten(tx));
  if (!dynamicOnly) return pending;
  const names = dynamicToolNames(tx.chat);
  return pending.filter((call) => names.has(call.tool_name));
}

/**
 * Closes pending tool calls with synthetic cancellation results. Their INSERT is queued
 * (queueMessages): the transition names their places (InsertedRows.withRowsSince).
 */
export async function answerPendingToolCalls(tx: HistoryTx, options: { dynamicOnly: boolean; reason: string }): Promise<void> {
  const pending = await pendingCalls(tx, options.dynamicOnly);
  if (pending.length > 0) await queueMessages(tx, cancellationMessages(tx, pending, options.reason));
}

/** What cutAtUserMessage found and did. */
export interface HistoryCut {
  /** The active message with the id, as it was; undefined when the chat has none. */
  target: ChatMessageRow | undefined;
  /** The messages marked deleted, oldest first; none when the target is not a user-visible user message. */
  deletedIds: number[];
}

/**
 * EditMessage's truncation in one statement: reads active message `id`, and when it is a user
 * message shown to the user, marks the active history from it on as deleted. The same statement
 * reads the active tail that is left (the rows before the cut, from the last assistant message
 * on), so the transaction's later history writes need no read of their own.
 */
export async function cutAtUserMessage(tx: HistoryTx, id: number): Promise<HistoryCut> {
  await tx.beforeHistoryWrite();
  // The statement's reads see the rows as they were before its UPDATE: the tail is bounded by the cut.
  const [row] = await tx.query<{ target: RawRow | null; deleted: number[]; tail: RawRow[] }>(
    `WITH target AS (
       SELECT * FROM chat_messages WHERE id = $2 AND chat_id = $1 AND NOT deleted
     ), cut AS (
       UPDATE chat_messages m SET deleted = true FROM target t
       WHERE m.chat_id = $1 AND m.id >= t.id AND NOT m.deleted AND t.role = 'user' AND NOT t.model_only
       RETURNING m.id
     )
     SELECT (SELECT to_jsonb(t) FROM target t) AS target,
            (SELECT coalesce(jsonb_agg(c.id ORDER BY c.id), '[]'::jsonb) FROM cut c) AS deleted,
            (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]'::jsonb) FROM chat_messages m, target t
             WHERE m.chat_id = $1 AND NOT m.deleted AND m.id < t.id
               AND m.id >= (SELECT max(a.id) FROM chat_messages a
                             WHERE a.chat_id = $1 AND NOT a.deleted AND a.role = 'assistant' AND a.id < t.id)) AS tail`,
    [tx.chatId, id],
  );
  if (!row?.target) return { target: undefined, deletedIds: [] };
  if (row.deleted.length > 0) tx.inserted.replaceTail(row.tail.map(messageFromRaw));
  return { target: messageFromRaw(row.target), deletedIds: row.deleted };
}

/** "at least one uncompressed assistant message after the latest compaction boundary" (RequestCompaction). */
export async function hasSomethingToCompact(tx: HistoryTx): Promise<boolean> {
  const [row] = await tx.query<{ ok: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM chat_messages m
       WHERE m.chat_id = $1 AND NOT m.deleted AND m.role = 'assistant' AND NOT m.compressed AND m.id > ${LATEST_BOUNDARY_SQL}
     ) AS ok`,
    [tx.chatId],
  );
  return row?.ok === true;
}

/** "an active model-visible non-system message follows the latest boundary" (ClearContext). */
export async function hasSomethingToClear(tx: HistoryTx): Promise<boolean> {
  const [row] = await tx.query<{ ok: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM chat_messages m
       WHERE m.chat_id = $1 AND NOT m.deleted AND m.role <> 'system' AND NOT m.compressed AND m.id > ${LATEST_BOUNDARY_SQL}
     ) AS ok`,
    [tx.chatId],
  );
  return row?.ok === true;
}
