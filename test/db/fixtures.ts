/**
 * Shared fixtures for the database tests: a pool on the real Postgres (through the WebSocket proxy,
 * as in production), a fresh owner, a recording notifier, and chats driven into any execution state
 * through real transitions (Invalid alone needs a direct write: no transition produces it).
 */
import { randomUUID } from "node:crypto";
import type { Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, inject } from "vitest";
import { WebSocket } from "ws";
import type { ClassifiedState, ExecutionState } from "../../src/chatstate/index";
import { classify } from "../../src/chatstate/index";
import { createDb, createPool } from "../../src/db/client";
import type { Database } from "../../src/db/database";
import {
  ChatStore,
  listMessages,
  listQueue,
  type ChatMessagePart,
  type ChatStoreOptions,
  type ChatUpdatePayload,
  type Notifier,
  type OwnershipHint,
} from "../../src/chats/index";
import {
  abandon,
  acquire,
  commitStep,
  enterRequiresAction,
  finishError,
  finishTurn,
  interrupt,
  sendMessage,
} from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

export function openPool(max = 10): Pool {
  return createPool({ databaseUrl: inject("databaseUrl"), wsProxy: inject("wsProxy"), webSocketConstructor: WebSocket, max });
}

/** Records every notification; tests read them per chat. */
export class RecordingNotifier implements Notifier {
  readonly updates: ChatUpdatePayload[] = [];
  readonly hints: OwnershipHint[] = [];
  chatUpdated(payload: ChatUpdatePayload): void {
    this.updates.push(payload);
  }
  ownershipHint(hint: OwnershipHint): void {
    this.hints.push(hint);
  }
  updatesFor(chatId: string): ChatUpdatePayload[] {
    return this.updates.filter((u) => u.chat_id === chatId);
  }
  hintsFor(chatId: string): OwnershipHint[] {
    return this.hints.filter((h) => h.chat_id === chatId);
  }
}

export interface Owner {
  userId: string;
  organizationId: string;
}

export async function makeOwner(pool: Pool): Promise<Owner> {
  const tag = randomUUID();
  const org = await pool.query<{ id: string }>(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [`org-${tag}`]);
  const user = await pool.query<{ id: string }>(`INSERT INTO users (email, username) VALUES ($1, $2) RETURNING id`, [
    `${tag}@example.com`,
    `u-${tag}`,
  ]);
  // A member of the organization, as every chat's owner is (the chat list shows a member's chats only).
  await pool.query(`INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'member')`, [
    org.rows[0]!.id,
    user.rows[0]!.id,
  ]);
  return { userId: user.rows[0]!.id, organizationId: org.rows[0]!.id };
}

export interface Env {
  pool: Pool;
  store: ChatStore;
  notifier: RecordingNotifier;
  owner: Owner;
}

export async function makeEnv(options: ChatStoreOptions = {}, poolSize = 10): Promise<Env> {
  const pool = openPool(poolSize);
  const notifier = new RecordingNotifier();
  const store = new ChatStore(pool, { notifier, ...options });
  return { pool, store, notifier, owner: await makeOwner(pool) };
}

/** A test file's Env with a drizzle handle on its pool, made before the file's tests and closed after them. */
export function fileEnv(): { readonly env: Env; readonly db: Database } {
  const held = {} as { env: Env; db: Database };
  beforeAll(async () => {
    held.env = await makeEnv();
    held.db = createDb(held.env.pool) as unknown as Database;
  });
  afterAll(() => held.env?.pool.end());
  return held;
}

export const text = (t: string): ChatMessagePart[] => [{ type: "text", text: t }];

/** The client-executed tool every fixture chat declares. */
export const DYNAMIC_TOOL = "ask_user";
/** A tool the server runs itself (not dynamic). */
export const LOCAL_TOOL = "read_file";

export function toolCall(id: string, name = DYNAMIC_TOOL): ChatMessagePart {
  return { type: "tool-call", tool_call_id: id, tool_name: name, args: { question: "proceed?" } };
}

export interface FixtureChat {
  chatId: string;
  /** The first user message (EditMessage's target). */
  firstUserMessageId: number;
  /** Queue ids in position order. */
  queue: number[];
  /** The pending dynamic tool call in A0/A1 fixtures. */
  pendingCallId: string | null;
}

export interface ChatSpec {
  /** Owned by a worker with a fresh heartbeat (O), or unowned (U). */
  owned?: boolean;
  /** Queued messages for the states that have a queue (default 1). */
  queued?: number;
  /** For Invalid: a queue or not (default none). */
  invalidQueued?: number;
}

/**
 * A fresh chat in `state`, reached through real transitions: Create, a committed assistant step,
 * then whatever the state needs. Invalid is the one direct write (running and archived).
 */
export async function makeChat(env: Env, state: ExecutionState | "Invalid", spec: ChatSpec = {}): Promise<FixtureChat> {
  const { store, owner } = env;
  const created = await store.create({
    organizationId: owner.organizationId,
    ownerId: owner.userId,
    content: text("hello"),
    unsafeDynamicTools: [{ name: DYNAMIC_TOOL, description: "asks the user" }],
  });
  const chatId = created.chat.id;
  const firstUserMessageId = created.value.messages.find((m) => m.role === "user")!.id;
  const worker = { workerId: randomUUID(), runnerId: randomUUID() };
  const queue: number[] = [];
  let pendingCallId: string | null = null;
  const enqueue = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const sent = await apply(store, sendMessage, chatId, { content: text(`queued ${i}`), busyBehavior: "queue" });
      queue.push(sent.value.queuedMessage!.id);
    }
  };
  const queued = spec.queued ?? 1;

  const base = state === "Invalid" ? "R0" : state.replace(/^X/, "");
  if (base.startsWith("A")) {
    pendingCallId = `call_${randomUUID()}`;
    await apply(store, commitStep, chatId, {
      messages: [{ role: "assistant", content: [{ type: "text", text: "need input" }, toolCall(pendingCallId)] }],
    });
  } else {
    await apply(store, commitStep, chatId, { messages: [{ role: "assistant", content: text("hi") }] });
  }
  switch (base) {
    case "R0":
      break;
    case "R1":
      await enqueue(queued);
      break;
    case "W":
      await apply(store, finishTurn, chatId);
      break;
    case "E0":
      await apply(store, finishError, chatId, { error: "model failed" });
      break;
    case "E1":
      await enqueue(queued);
      await apply(store, finishError, chatId, { error: "model failed" });
      break;
    case "I0":
    case "I1":
      if (base === "I1") await enqueue(queued);
      // An owner first: an unowned chat finishes its interruption at once.
      await apply(store, acquire, chatId, worker);
      await apply(store, interrupt, chatId);
      if (!spec.owned) await apply(store, abandon, chatId);
      break;
    case "A0":
    case "A1":
      await apply(store, enterRequiresAction, chatId);
      if (base === "A1") await enqueue(queued);
      break;
    default:
      throw new Error(`no fixture for ${state}`);
  }
  if (state.startsWith("X")) await store.setArchived(chatId, true);
  if (state === "Invalid") {
    if (spec.invalidQueued) await enqueue(spec.invalidQueued);
    // "a chat may have archived set to true and status to running, which isn't allowed".
    await env.pool.query(`UPDATE chats SET archived = true, snapshot_version = snapshot_version + 1 WHERE id = $1`, [chatId]);
  }
  if (spec.owned && !base.startsWith("I")) await apply(store, acquire, chatId, worker);
  const actual = await stateOf(env.pool, chatId);
  if (actual !== state) throw new Error(`fixture for ${state} landed in ${actual}`);
  return { chatId, firstUserMessageId, queue, pendingCallId };
}

export async function stateOf(pool: Pool, chatId: string): Promise<ClassifiedState> {
  const { rows } = await pool.query<{ status: string; archived: boolean; n: number }>(
    `SELECT c.status, c.archived, (SELECT count(*)::int FROM chat_queued_messages q WHERE q.chat_id = c.id) AS n FROM chats c WHERE c.id = $1`,
    [chatId],
  );
  const row = rows[0];
  return row === undefined ? "N" : classify(row, row.n);
}

/** The chat row, its messages, its queue and heartbeats, exactly as stored, as one JSON text. */
export async function snapshotRows(pool: Pool, chatId: string): Promise<string> {
  const { rows } = await pool.query<{ snapshot: string }>(
    `SELECT jsonb_build_object(
       'chat', (SELECT to_jsonb(c) FROM chats c WHERE c.id = $1),
       'messages', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]'::jsonb) FROM chat_messages m WHERE m.chat_id = $1),
       'queue', (SELECT coalesce(jsonb_agg(to_jsonb(q) ORDER BY q.position), '[]'::jsonb) FROM chat_queued_messages q WHERE q.chat_id = $1),
       'heartbeats', (SELECT coalesce(jsonb_agg(to_jsonb(h) ORDER BY h.runner_id), '[]'::jsonb) FROM chat_heartbeats h WHERE h.chat_id = $1)
     )::text AS snapshot`,
    [chatId],
  );
  return rows[0]!.snapshot;
}

export async function chatRow(env: Env, chatId: string) {
  const { rows } = await env.pool.query(`SELECT * FROM chats WHERE id = $1`, [chatId]);
  return rows[0] as Record<string, unknown>;
}

export const history = (env: Env, chatId: string) => listMessages(env.pool, chatId, { includeDeleted: true, includeModelOnly: true });
export const queueOf = (env: Env, chatId: string) => listQueue(env.pool, chatId);
