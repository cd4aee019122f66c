/**
 * One cycle of each side of the transitions bench: a user message sent to an idle chat and its
 * turn finished, as six transactions. `mark(i)` is called after the i-th (0-based) so the driver
 * can time and count each one.
 *
 * chatd: the real ChatStore through the Neon driver, as the chat command and the runner call it:
 *   SendMessage (store.update with the transition's prefetch, as POST /messages does), Acquire
 *   (acquireChat: the admission transaction), then the generation task's fenced writes:
 *   RecordGenerationAttempt (one statement, as the owning runner records it), CommitStep of one
 *   assistant message, and FinishTurn with the Abandon the runner applies in the same transaction
 *   when the chat lands idle (so the next cycle acquires again, as a new turn does).
 *   The runner's fenced reads (the chat and its history before each step) are not transitions and
 *   are left out.
 *
 * bare: the same writes as hand-written SQL on the same pool type, one transaction per transition:
 *   BEGIN + two statements + COMMIT where the transition writes two things (the chat row and a
 *   message or heartbeat), one autocommitted statement where it writes only the chat row. Every
 *   UPDATE bumps snapshot_version (the message trigger stamps a row's revision from it) and guards
 *   on the state it expects; a guard that matches nothing throws.
 */
import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "@neondatabase/serverless";
import { acquireChat } from "../../../src/chat-worker/leases/admission";
import { fencedRecordAttempt, fencedUpdate } from "../../../src/chat-worker/fenced-db";
import type { Fence } from "../../../src/chat-worker/fence";
import type { ChatStore } from "../../../src/chats/store";
import { commitStep, finishTurn, sendMessage } from "../../../src/chats/transitions/index";
import { releaseWhenIdle } from "../../../src/chat-worker/release-when-idle";
import type { ChatMessagePart } from "../../../src/db/schema/chats";

export const TRANSITIONS = ["SendMessage", "Acquire", "RecordGenerationAttempt", "CommitStep", "FinishTurn", "Abandon"] as const;

export interface CycleContext {
  chatId: string;
  ownerId: string;
  workerId: string;
  /** Index of the cycle in this chat, for the message texts. */
  n: number;
  mark: (transition: number) => void;
}

export type Cycle = (ctx: CycleContext) => Promise<void>;

const userParts = (n: number): ChatMessagePart[] => [{ type: "text", text: `message ${n}: how is the weather today?` }];
const assistantParts = (n: number): ChatMessagePart[] => [{ type: "text", text: `reply ${n}: sunny, with a light breeze.` }];

export function chatdCycle(store: ChatStore, limits: { root: number; subagent: number }): Cycle {
  return async ({ chatId, ownerId, workerId, n, mark }) => {
    const input = { content: userParts(n), busyBehavior: "queue" as const, createdBy: ownerId };
    const sent = await store.update(chatId, (tx) => sendMessage(tx, input), { prefetchTail: sendMessage.prefetchTail(input) });
    if (sent.value.queued) throw new Error(`chat ${chatId}: the message was queued, the chat was not idle`);
    mark(0);
    const runnerId = randomUUID();
    const outcome = await acquireChat(store, chatId, { workerId, runnerId, limits, staleThresholdMs: store.options.staleThresholdMs });
    if (outcome.kind !== "acquired") throw new Error(`chat ${chatId}: not acquired (${outcome.kind}: ${outcome.reason})`);
    mark(1);
    let fence: Fence = { chatId, workerId, runnerId, historyVersion: outcome.chat.historyVersion, status: "running" };
    await fencedRecordAttempt(store, fence);
    mark(2);
    const step = await fencedUpdate(store, fence, (tx) =>
      commitStep(tx, { messages: [{ role: "assistant", content: assistantParts(n) }] }),
    );
    // The commit's notification starts a new task fenced on the new history version.
    fence = { ...fence, historyVersion: step.chat.historyVersion };
    mark(3);
    // The runner releases the chat in the transaction that lands it idle (release-when-idle.ts):
    // Abandon costs no transaction of its own, and its mark follows FinishTurn's at once.
    const finished = await fencedUpdate(
      store,
      fence,
      async (tx) => {
        await finishTurn(tx);
        await releaseWhenIdle(tx);
      },
      finishTurn.prefetchTail(),
    );
    if (finished.chat.status !== "waiting") throw new Error(`chat ${chatId}: FinishTurn landed in ${finished.chat.status}`);
    if (finished.chat.workerId !== null) throw new Error(`chat ${chatId}: FinishTurn left the chat owned`);
    mark(4);
    mark(5);
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
    await transaction(pool, async (c) => {
      await oneRow(
        c,
        `UPDATE chats SET snapshot_version = snapshot_version + 1, status = 'running', updated_at = now()
         WHERE id = $1 AND status = 'waiting' AND NOT archived`,
        [chatId],
        "send",
      );
      await oneRow(c, INSERT_MESSAGE, [chatId, "user", JSON.stringify(userParts(n)), ownerId], "send: insert");
    });
    mark(0);
    const runnerId = randomUUID();
    await transaction(pool, async (c) => {
      await oneRow(
        c,
        `UPDATE chats SET snapshot_version = snapshot_version + 1, worker_id = $2, runner_id = $3, updated_at = now()
         WHERE id = $1 AND status = 'running' AND worker_id IS NULL`,
        [chatId, workerId, runnerId],
        "acquire",
      );
      await oneRow(
        c,
        `INSERT INTO chat_heartbeats (chat_id, runner_id, heartbeat_at) VALUES ($1, $2, now())
         ON CONFLICT (chat_id, runner_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
        [chatId, runnerId],
        "acquire: heartbeat",
      );
    });
    mark(1);
    await oneRow(
      pool,
      `UPDATE chats SET snapshot_version = snapshot_version + 1, generation_attempt = generation_attempt + 1, updated_at = now()
       WHERE id = $1 AND runner_id = $2 AND status = 'running'`,
      [chatId, runnerId],
      "attempt",
    );
    mark(2);
    await transaction(pool, async (c) => {
      await oneRow(
        c,
        `UPDATE chats SET snapshot_version = snapshot_version + 1, updated_at = now() WHERE id = $1 AND runner_id = $2 AND status = 'running'`,
        [chatId, runnerId],
        "commit step",
      );
      await oneRow(c, INSERT_MESSAGE, [chatId, "assistant", JSON.stringify(assistantParts(n)), null], "commit step: insert");
    });
    mark(3);
    await oneRow(
      pool,
      `UPDATE chats SET snapshot_version = snapshot_version + 1, status = 'waiting', retry_state = NULL, updated_at = now()
       WHERE id = $1 AND runner_id = $2 AND status = 'running'`,
      [chatId, runnerId],
      "finish turn",
    );
    mark(4);
    await oneRow(
      pool,
      `UPDATE chats SET snapshot_version = snapshot_version + 1, worker_id = NULL, runner_id = NULL, updated_at = now()
       WHERE id = $1 AND runner_id = $2`,
      [chatId, runnerId],
      "abandon",
    );
    mark(5);
  };
}
