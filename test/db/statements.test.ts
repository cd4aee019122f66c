/**
 * Statements run under the row lock for the hot transitions (Coder's roundtrips_test). Every
 * statement of `update` runs under the lock: the first one takes it. The bounds are what the
 * design allows; the counts are printed once so they can be reported.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Committed } from "../../src/chats/index";
import { makeChat, makeEnv, text, toolCall, type Env } from "./fixtures";
import { acquire, commitStep, finishTurn, recordGenerationAttempt, recordRetryState, sendMessage } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";
import { prefetchFor } from "../../src/chats/lock-prefetch";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
const counts: Record<string, number> = {};
afterAll(async () => {
  console.log(`statements under the row lock (BEGIN/COMMIT excluded): ${JSON.stringify(counts)}`);
  await env.pool.end();
});

function record(name: string, committed: Committed<unknown>, bound: number): void {
  counts[name] = committed.statements;
  expect(committed.statements, name).toBeLessThanOrEqual(bound);
}

describe("statements under the row lock", () => {
  it("SendMessage: 4 to queue on a running chat, 4 to insert into an idle one", async () => {
    const running = await makeChat(env, "R0", { owned: true });
    record(
      "SendMessage(queue) R0->R1",
      await apply(env.store, sendMessage, running.chatId, { content: text("q"), busyBehavior: "queue" }),
      4,
    );
    record(
      "SendMessage(queue) R1->R1",
      await apply(env.store, sendMessage, running.chatId, { content: text("q2"), busyBehavior: "queue" }),
      4,
    );
    const idle = await makeChat(env, "W", { owned: true });
    record("SendMessage W->R0", await apply(env.store, sendMessage, idle.chatId, { content: text("go"), busyBehavior: "queue" }), 4);
    const unowned = await makeChat(env, "R0");
    // Queue, then FinishInterruption promotes m at once: one more statement for the promotion.
    record(
      "SendMessage(interrupt) R0 unowned->R0",
      await apply(env.store, sendMessage, unowned.chatId, { content: text("now"), busyBehavior: "interrupt" }),
      5,
    );
  });

  it("SendMessage with a staged title: the commit write carries it, no statement more", async () => {
    const idle = await makeChat(env, "W", { owned: true });
    const input = { content: text("plan a trip"), busyBehavior: "queue" as const };
    const committed = await env.store.update(
      idle.chatId,
      async (tx) => {
        const sent = await sendMessage(tx, input);
        tx.stageTitle("plan a trip", "fallback");
        return sent;
      },
      { prefetchTail: prefetchFor(sendMessage, input) },
    );
    // As many as without the title ("SendMessage W->R0" above).
    record("SendMessage W->R0 with a title", committed, 3);
    expect([committed.chat.title, committed.chat.titleSource]).toEqual(["plan a trip", "fallback"]);
    const { rows } = await env.pool.query("SELECT title, title_source, title_updated_at IS NOT NULL AS stamped FROM chats WHERE id = $1", [
      idle.chatId,
    ]);
    expect(rows[0]).toEqual({ title: "plan a trip", title_source: "fallback", stamped: true });
  });

  it("CommitStep: 4", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    record(
      "CommitStep R0->R0",
      await apply(env.store, commitStep, chat.chatId, {
        messages: [
          { role: "assistant", content: [toolCall("c1", "read_file")] },
          { role: "tool", content: [{ type: "tool-result", tool_call_id: "c1", tool_name: "read_file", result: "x", is_error: false }] },
        ],
      }),
      4,
    );
  });

  it("FinishTurn: 3 to waiting, 4 promoting the queue head", async () => {
    const r0 = await makeChat(env, "R0", { owned: true });
    record("FinishTurn R0->W", await apply(env.store, finishTurn, r0.chatId), 3);
    const r1 = await makeChat(env, "R1", { owned: true, queued: 2 });
    record("FinishTurn R1->R1", await apply(env.store, finishTurn, r1.chatId), 4);
  });

  it("the worker's bookkeeping stays at 3", async () => {
    const chat = await makeChat(env, "R0", { owned: true });
    record("RecordGenerationAttempt", await apply(env.store, recordGenerationAttempt, chat.chatId), 3);
    record("RecordRetryState", await apply(env.store, recordRetryState, chat.chatId, { retryState: { attempt: 1 } }), 3);
    record("Acquire", await apply(env.store, acquire, chat.chatId, { workerId: crypto.randomUUID(), runnerId: crypto.randomUUID() }), 4);
  });
});
