/**
 * One cycle of each side of the transitions bench: a user message sent to an idle chat and its
 * turn finished, in the three transactions a turn takes when it runs in the chat's object.
 * `mark(i)` is called after the i-th (0-based) so the driver can time and count each one.
 *
 * chatd: the real ChatStore through the Neon driver, as the object and its runner call it:
 *   1. SendMessage with the in-transaction Acquire (POST /messages in the chat's own object:
 *      updateAcquiringInCommand, as ChatWorker.update runs it), with the pool's advisory lock
 *      tried in the row lock's round trip when the pool is limited. When admission needs more than that transaction has (the
 *      pool's lock busy, the pool full at commit), the chat is acquired afterwards by acquireChat
 *      in a transaction of its own, as the object's acquisition loop does, and that counts in the
 *      same mark.
 *   2. RecordGenerationAttempt, one statement for the owning runner, as the generation task,
 *      only when the send did not acquire the chat: an acquisition in the send records the new
 *      runner's first attempt in its commit write (acquire-in-command.ts), and the mark is then
 *      reached with nothing sent. The bare side records it with the send's heartbeat.
 *   3. CommitStep of one assistant message, and in the same transaction FinishTurn and the Abandon
 *      the runner applies when the chat lands idle (generation.ts: the reply's commit ends the
 *      turn), so the next cycle acquires again, as a new turn does.
 *   The runner's fenced reads (the chat and its history before each step) are not transitions and
 *   are left out; so is the next task's handoff read, which a turn's last commit does not need.
 *
 * bare: the same writes as hand-written SQL on the same pool type, in the same three transactions:
 *   BEGIN + one statement per write + COMMIT where the transaction writes more than the chat row,
 *   one autocommitted statement where it writes only the chat row. Every UPDATE bumps
 *   snapshot_version (the message trigger stamps a row's revision from it) and guards on the state
 *   it expects; a guard that matches nothing throws.
 */
import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "@neondatabase/serverless";
import { updateAcquiringInCommand } from "../../../src/chat-worker/leases/acquire-in-command";
import { acquireChat } from "../../../src/chat-worker/leases/admission";
import { NO_SHARES, type PoolLimits } from "../../../src/chat-worker/leases/pools";
import { fencedRecordAttempt, fencedUpdate } from "../../../src/chat-worker/fenced-db";
import type { Fence } from "../../../src/chat-worker/fence";
import type { ChatStore } from "../../../src/chats/store";
import { commitStep, finishTurn, sendMessage } from "../../../src/chats/transitions/index";
import { releaseWhenIdle } from "../../../src/chat-worker/release-when-idle";
import type { ChatMessagePart } from "../../../src/db/schema/chats";
import { prefetchFor } from "../../../src/chats/lock-prefetch";

/** The cycle's transactions, in order; the transitions each applies. */
export const TRANSACTIONS = ["SendMessage + Acquire", "RecordGenerationAttempt", "CommitStep + FinishTurn + Abandon"] as const;

export interface CycleContext {
  chatId: string;
  ownerId: string;
  workerId: string;
  /** Index of the cycle in this chat, for the message texts. */
  n: number;
  mark: (transaction: number) => void;
}

export type Cycle = (ctx: CycleContext) => Promise<void>;

const userParts = (n: number): ChatMessagePart[] => [{ type: "text", text: `message ${n}: how is the weather today?` }];
const assistantParts = (n: number): ChatMessagePart[] => [{ type: "text", text: `reply ${n}: sunny, with a light breeze.` }];

export function chatdCycle(store: ChatStore, limits: PoolLimits): Cycle {
  return async ({ chatId, ownerId, workerId, n, mark }) => {
    const input = { content: userParts(n), busyBehavior: "queue" as const, createdBy: ownerId };
    const runnerId = randomUUID();
    // No tenant shares: the bench's chats all have one owner, and the pool limit is what it measures.
    const admission = { workerId, runnerId, limits, shares: NO_SHARES, staleThresholdMs: store.options.staleThresholdMs };
    const sent = await updateAcquiringInCommand(
      store,
      chatId,
      admission,
      async (tx) => {
        const sent = await sendMessage(tx, input);
        if (sent.queued) throw new Error(`chat ${chatId}: the message was queued, the chat was not idle`);
      },
      { prefetchTail: prefetchFor(sendMessage, input) },
    );
    let { chat } = sent;
    if (chat.runnerId !== runnerId) {
      // Left to the acquisition loop, as the object's worker would be.
      const outcome = await acquireChat(store, chatId, admission);
      if (outcome.kind !== "acquired") throw new Error(`chat ${chatId}: not acquired (${outcome.kind}: ${outcome.reason})`);
      chat = outcome.chat;
    }
    mark(0);
    const fence: Fence = { chatId, workerId, runnerId, historyVersion: chat.historyVersion, status: "running" };
    // An acquisition in the send recorded the runner's first attempt in its commit write, as in the object.
    if (sent.acquired === undefined) await fencedRecordAttempt(store, fence);
    mark(1);
    const finished = await fencedUpdate(store, fence, async (tx) => {
      await commitStep(tx, { messages: [{ role: "assistant", content: assistantParts(n) }] });
      await finishTurn(tx);
      await releaseWhenIdle(tx);
    });
    if (finished.chat.status !== "waiting") throw new Error(`chat ${chatId}: the turn's end landed in ${finished.chat.status}`);
    if (finished.chat.workerId !== null) throw new Error(`chat ${chatId}: the turn's end left the chat owned`);
    mark(2);
  };
}

async function oneRow(client: Pick<Pool | PoolClient, "query">, sql: string, values: unknown[], what: string): Promise<void> {
  const result = await client.query(sql, values);
  if (result.rowCount !== 1) throw new Error(`bare ${what}: ${result.rowCount} rows`);
}

async function transaction(pool: Pool, fn: (client: PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await fn(client);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    client.release(true);
    throw err;
  }
  client.release();
}

const INSERT_MESSAGE = "INSERT INTO chat_messages (chat_id, role, content, created_by) VALUES ($1, $2, $3::jsonb, $4)";

export function bareCycle(pool: Pool): Cycle {
  return async ({ chatId, ownerId, workerId, n, mark }) => {
    const runnerId = randomUUID();
    await transaction(pool, async (c) => {
      await oneRow(
        c,
        `UPDATE chats SET snapshot_version = snapshot_version + 1, status = 'running', worker_id = $2, runner_id = $3, updated_at = now()
         WHERE id = $1 AND status = 'waiting' AND worker_id IS NULL AND NOT archived`,
        [chatId, workerId, runnerId],
        "send and acquire",
      );
      await oneRow(c, INSERT_MESSAGE, [chatId, "user", JSON.stringify(userParts(n)), ownerId], "send: insert");
      // The runner's first attempt rides with the heartbeat, after the INSERT reset it, as chatd's send records it.
      await oneRow(
        c,
        `WITH attempt AS (UPDATE chats SET generation_attempt = generation_attempt + 1 WHERE id = $1 AND runner_id = $2 RETURNING id)
         INSERT INTO chat_heartbeats (chat_id, runner_id, heartbeat_at) SELECT $1, $2, now() FROM attempt
         ON CONFLICT (chat_id, runner_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
        [chatId, runnerId],
        "acquire: heartbeat and attempt",
      );
    });
    mark(0);
    mark(1);
    await transaction(pool, async (c) => {
      await oneRow(
        c,
        `UPDATE chats SET snapshot_version = snapshot_version + 1, status = 'waiting', retry_state = NULL,
           worker_id = NULL, runner_id = NULL, updated_at = now()
         WHERE id = $1 AND runner_id = $2 AND status = 'running'`,
        [chatId, runnerId],
        "commit step, finish turn and abandon",
      );
      await oneRow(c, INSERT_MESSAGE, [chatId, "assistant", JSON.stringify(assistantParts(n)), null], "commit step: insert");
    });
    mark(2);
  };
}
