/**
 * Debug runs in Postgres (src/debug-runs/store.ts, src/cron/debug-runs.ts): a chat keeps at most
 * its bound, the newest; the list is newest first and narrows to a turn; a run of another chat is
 * not read through this one; the retention purge deletes only what is older than its hours, in batches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewDebugRun } from "../../src/debug-runs/capture";
import { insertDebugRuns, listDebugRuns, readDebugRun, setChatDebugRuns } from "../../src/debug-runs/store";
import { purgeExpiredDebugRuns } from "../../src/cron/debug-runs";
import { type Env, makeChat, makeEnv } from "./fixtures";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env?.pool.end());

function run(chatId: string, n: number, traceId = "trace-a"): NewDebugRun {
  return {
    chatId,
    kind: "step",
    traceId,
    provider: "openai",
    model: "gpt-4o",
    modelConfigId: null,
    transport: "openai-chat",
    startedAt: new Date(),
    durationMs: n,
    status: 200,
    error: null,
    request: { method: "POST", url: "https://x.test/v1", headers: {}, body: { n }, body_truncated: false, body_bytes: 8 },
    response: { status: 200, headers: {}, body: `data: ${n}`, body_truncated: false, body_bytes: 8 },
    outcome: { finish_reason: "stop", usage: { input_tokens: n }, parts: [], parts_truncated: false },
    bytes: 100,
  };
}

describe("debug run rows", () => {
  it("keep a chat's newest runs up to the bound, newest first", async () => {
    const { chatId } = await makeChat(env, "W");
    for (let i = 0; i < 4; i++) await insertDebugRuns(env.pool, chatId, [run(chatId, 2 * i), run(chatId, 2 * i + 1, "trace-b")], 5);
    const listed = await listDebugRuns(env.pool, chatId, { limit: 50 });
    expect(listed.map((r) => r.durationMs)).toEqual([7, 6, 5, 4, 3]);
    expect((await listDebugRuns(env.pool, chatId, { limit: 50, traceId: "trace-b" })).map((r) => r.durationMs)).toEqual([7, 5, 3]);
    expect((await listDebugRuns(env.pool, chatId, { limit: 2 })).length).toBe(2);
    const first = await readDebugRun(env.pool, chatId, listed[0]?.id ?? "");
    expect(first?.request.body).toEqual({ n: 7 });
    expect(first?.finishReason).toBe("stop");
    // Another chat's run is not this chat's.
    const other = await makeChat(env, "W");
    expect(await readDebugRun(env.pool, other.chatId, listed[0]?.id ?? "")).toBeUndefined();
  });

  it("are deleted with the flag turned off", async () => {
    const { chatId } = await makeChat(env, "W");
    expect(await setChatDebugRuns(env.pool, chatId, true)).toBe(true);
    await insertDebugRuns(env.pool, chatId, [run(chatId, 1)], 10);
    expect(await setChatDebugRuns(env.pool, chatId, false)).toBe(true);
    expect(await listDebugRuns(env.pool, chatId, { limit: 10 })).toEqual([]);
  });

  it("older than the retention are purged, in batches, and nothing newer", async () => {
    const { chatId } = await makeChat(env, "W");
    await insertDebugRuns(
      env.pool,
      chatId,
      Array.from({ length: 7 }, (_, i) => run(chatId, i)),
      100,
    );
    // Five of them three days old, two fresh.
    await env.pool.query(
      `UPDATE chat_debug_runs SET created_at = now() - interval '3 days'
        WHERE id IN (SELECT id FROM chat_debug_runs WHERE chat_id = $1 ORDER BY created_at LIMIT 5)`,
      [chatId],
    );
    const deleted = await purgeExpiredDebugRuns(env.pool, { retentionHours: 48, now: new Date(), batch: 2 });
    expect(deleted).toBeGreaterThanOrEqual(5);
    expect((await listDebugRuns(env.pool, chatId, { limit: 10 })).map((r) => r.durationMs)).toEqual([6, 5]);
  });
});
