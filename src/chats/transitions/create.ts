/**
 * Create(initialMessages): "creates a new chat, initializes snapshot_version to 1, inserts its
 * initial history, and lands in running" — or in waiting "when the initial history carries no
 * user message" (N --> R0, N --> W). There is no row to lock first. A child chat "first locks the
 * family's root chat row with FOR SHARE and fails if the root is archived, so a new child never
 * joins an archived family."
 *
 * Titles: the caller's title is a `user` title; otherwise a `fallback` title from the prompt, or
 * "New Chat" for empty content. The system prompt is stored on the chat and inserted as the first
 * history message (a model-only system message).
 *
 * ChatStore.create runs it in one transaction: `insertChat` writes the row, `createChat` applies
 * the transition on a ChatTx for it, and the store commits and publishes as for every transition.
 */
import { ChatNotFoundError, classify, landing, TransitionNotAllowedError } from "../../chatstate/index";
import type { ChatTx } from "../chat-tx";
import { FamilyArchivedError } from "../errors";
import { queueHistory, type NewMessage } from "../history";
import { chatFromRaw } from "../../db/rows";
import type { ChatClientType, ChatMessagePart, ChatRow, DynamicToolDefinition } from "../../db/schema/chats";
import { fallbackTitle } from "../title";
import type { StoreTransaction } from "../../db/transaction";
import type { InsertedRange } from "../inserted-refs";

export interface CreateChatInput {
  /** A caller-minted id; Create fails with TransitionNotAllowedError when a chat already has it. */
  id?: string;
  organizationId: string;
  ownerId: string;
  parentChatId?: string | null;
  /** The first user message; empty: the chat is created idle (W). */
  content: ChatMessagePart[];
  title?: string | null;
  systemPrompt?: string | null;
  modelConfigId?: string | null;
  reasoningEffort?: string | null;
  labels?: Record<string, string>;
  unsafeDynamicTools?: DynamicToolDefinition[] | null;
  projectId?: string | null;
  /** Already checked (same organization, enabled): src/mcp/servers.ts. */
  mcpServerIds?: readonly string[];
  /** Plan mode (docs/plan-mode.md); metadata, off unless asked for. */
  planMode?: boolean;
  /** Coder's client_type: `ui` when a browser app says it created the chat; `api` otherwise. */
  clientType?: ChatClientType;
  /** The author of the first message; defaults to the owner. */
  createdBy?: string | null;
  /** Runs inside the transaction after the initial history (file links); its rows may not have been sent yet. */
  afterInsert?: (tx: ChatTx) => Promise<void>;
}

/**
 * The initial history's INSERT goes out with the transaction's next statement (normally the commit
 * write): `messages` names the rows' places, and the committed result has the rows.
 */
export interface CreateChatResult {
  readonly messages: InsertedRange;
}

/** Locks the family root FOR SHARE (see the file header); returns the root's id. */
async function joinFamily(t: StoreTransaction, parentId: string): Promise<string> {
  const [parent] = await t.query<{ root_chat_id: string | null; archived: boolean }>(
    `SELECT root_chat_id, archived FROM chats WHERE id = $1`,
    [parentId],
  );
  if (parent === undefined) throw new ChatNotFoundError(parentId);
  const rootId = parent.root_chat_id ?? parentId;
  const [root] = await t.query<{ archived: boolean }>(`SELECT archived FROM chats WHERE id = $1 FOR SHARE`, [rootId]);
  if (root === undefined) throw new ChatNotFoundError(rootId);
  if (root.archived) throw new FamilyArchivedError(rootId, rootId);
  // Not the spec's rule (it names the root), but a child archived on its own is no place for a new chat either.
  if (parent.archived) throw new FamilyArchivedError(rootId, parentId);
  return rootId;
}

const variantOf = (input: Pick<CreateChatInput, "content">) => (input.content.length > 0 ? "with user message" : "empty content");

/**
 * Inserts the chats row in the landing state with snapshot_version 1, after joining the family
 * for a child; TransitionNotAllowedError when the id is taken. The store then applies `createChat`
 * on the new row.
 */
export async function insertChat(t: StoreTransaction, input: CreateChatInput): Promise<ChatRow> {
  const to = landing("Create", "N", variantOf(input));
  const title = input.title?.trim()
    ? { title: input.title.trim(), source: "user" as const }
    : { title: fallbackTitle(input.content), source: "fallback" as const };
  const parentId = input.parentChatId ?? null;
  const rootId = parentId === null ? null : await joinFamily(t, parentId);
  const [raw] = await t.query(
    `INSERT INTO chats (id, organization_id, owner_id, parent_chat_id, root_chat_id, status, snapshot_version,
       title, title_source, labels, last_model_config_id, last_reasoning_effort, project_id, system_prompt, unsafe_dynamic_tools, mcp_server_ids, plan_mode, client_type)
     VALUES (coalesce($1::uuid, gen_random_uuid()), $2, $3, $4, $5, $6, 1, $7, $8, $9::jsonb, $10, $11, $12, $13, $14::jsonb, $15::jsonb, $16, $17)
     ON CONFLICT (id) DO NOTHING
     RETURNING *`,
    [
      input.id ?? null,
      input.organizationId,
      input.ownerId,
      parentId,
      rootId,
      to === "R0" ? "running" : "waiting",
      title.title,
      title.source,
      JSON.stringify(input.labels ?? {}),
      input.modelConfigId ?? null,
      input.reasoningEffort ?? null,
      input.projectId ?? null,
      input.systemPrompt ?? null,
      input.unsafeDynamicTools == null ? null : JSON.stringify(input.unsafeDynamicTools),
      JSON.stringify(input.mcpServerIds ?? []),
      input.planMode ?? false,
      input.clientType ?? "api",
    ],
  );
  if (raw === undefined) {
    // The id is taken: Create is not allowed from whatever state that chat is in.
    const [existing] = await t.query(
      `SELECT c.*, (SELECT count(*)::int FROM chat_queued_messages q WHERE q.chat_id = c.id) AS queue_length FROM chats c WHERE c.id = $1`,
      [input.id],
    );
    throw new TransitionNotAllowedError(
      "Create",
      existing === undefined ? "N" : classify(chatFromRaw(existing), Number(existing.queue_length)),
    );
  }
  return chatFromRaw(raw);
}

/** Create on the row `insertChat` inserted: the initial history (system prompt, first message), then the landing. */
export async function createChat(tx: ChatTx, input: CreateChatInput): Promise<CreateChatResult> {
  const initial: NewMessage[] = [];
  if (input.systemPrompt) initial.push({ role: "system", content: [{ type: "text", text: input.systemPrompt }], modelOnly: true });
  if (input.content.length > 0) {
    initial.push({
      role: "user",
      content: input.content,
      modelConfigId: input.modelConfigId ?? null,
      reasoningEffort: input.reasoningEffort ?? null,
      createdBy: input.createdBy ?? input.ownerId,
    });
  }
  const mark = tx.inserted.count;
  await queueHistory(tx, initial, "the chat was created");
  // The initial history only: what afterInsert adds is its caller's.
  const result = tx.inserted.withRowsSince(mark, {});
  await input.afterInsert?.(tx);
  await tx.land("Create", "N", variantOf(input));
  return result;
}
