/**
 * Manual compaction (/compact) in chats that run by themselves against the fake model: from
 * waiting, from an error with an unanswered message, from an error with a queued message, and the
 * progress part it streams. Test config: 2 generation retries (vitest.config.ts, project "runner").
 * Automatic compaction: automatic-compaction.test.ts; shared helpers in support/compaction-chats.ts.
 */
import { SELF } from "cloudflare:test";
import { afterAll, describe, expect, inject, it } from "vitest";
import { SUMMARY_INSTRUCTION } from "../../src/llm/compaction/summary-prompt";
import { api, BASE, expectJson } from "../worker/support/accounts";
import { compactionUser, storedRows } from "./support/compaction-models";
import { modelUsers, releaseChatsOf } from "./support/model-user";
import { nonce, send, start, summaries, textOf, until } from "./support/compaction-chats";

const compactionMarker = async (id: string) => {
  const { withDb } = await import("../worker/support/accounts");
  const { chats } = await import("../../src/db/schema/chats");
  const { eq } = await import("drizzle-orm");
  const [row] = await withDb((db) => db.select({ at: chats.compactionRequestedAt }).from(chats).where(eq(chats.id, id)));
  return row?.at ?? null;
};

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("manual compaction (/compact)", () => {
  it("from W: summarizes, clears the request and finishes without a reply", async () => {
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 90 });
    const hello = `hello ${nonce()}`;
    const id = await start(u, hello);
    await until(u, id, "waiting");
    await expectJson(await api(`/chats/${id}/compact`, { method: "POST", token: u.token }), 200);
    await expect.poll(async () => summaries(await storedRows(id)).length, { timeout: 30_000, interval: 100 }).toBe(1);
    await until(u, id, "waiting");
    const rows = await storedRows(id);
    expect(summaries(rows)).toMatchObject([{ source: "manual", threshold_percent: 90, trigger_context_limit_tokens: 8000 }]);
    expect(rows.at(-1)!.role).toBe("tool");
    expect(await compactionMarker(id)).toBeNull();
    // The summary call went out with the owner's attribution, like a turn's.
    const logged = await fetch(`${inject("fakeModelUrl")}/_requests?contains=${encodeURIComponent(SUMMARY_INSTRUCTION)}`);
    const summaryCall = ((await logged.json()) as { requests: { headers: Record<string, string>; userTexts: string[] }[] }).requests.find(
      (r) => r.userTexts.includes(hello),
    );
    expect(JSON.parse(summaryCall?.headers["cf-aig-metadata"] ?? "{}")).toMatchObject({ chat_id: id });
    // A second /compact finds nothing to compact.
    expect((await api(`/chats/${id}/compact`, { method: "POST", token: u.token })).status).toBe(409);
  });

  it("streams a 'Summarizing…' progress part in the compaction's episode", async () => {
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 90 });
    const id = await start(u, `hello ${nonce()}`);
    await until(u, id, "waiting");
    const res = await SELF.fetch(`${BASE}/chats/${id}/stream/parts?coder_session_token=${u.token}`, { headers: { Upgrade: "websocket" } });
    const ws = res.webSocket!;
    const parts: { part: { type: string; tool_name?: string; args?: Record<string, unknown> } }[] = [];
    ws.addEventListener("message", (e) => parts.push(JSON.parse(e.data as string)));
    ws.accept();
    const accepted = await expectJson<{ history_version: number }>(
      await api(`/chats/${id}/compact`, { method: "POST", token: u.token }),
      200,
    );
    // The compaction turn's first attempt; the episode stays readable for a while after it closes.
    ws.send(JSON.stringify({ history_version: accepted.history_version, generation_attempt: 1 }));
    await expect.poll(() => parts.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(parts[0]!.part).toMatchObject({
      type: "tool-call",
      tool_name: "chat_summarized",
      args: { source: "manual", status: "Summarizing…" },
    });
    ws.close();
  });

  it("from E0: clears the error, summarizes, then answers the unanswered message", async () => {
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 90 });
    const id = await start(u, `hello ${nonce()}`);
    await until(u, id, "waiting");
    const failing = `/error 400 1 recovered-${nonce()}`;
    await send(u, id, failing);
    await until(u, id, "error");
    await expectJson(await api(`/chats/${id}/compact`, { method: "POST", token: u.token }), 200);
    await expect.poll(async () => summaries(await storedRows(id)).length, { timeout: 30_000, interval: 100 }).toBe(1);
    const done = await until(u, id, "waiting");
    expect(done.last_error).toBeNull();
    const rows = await storedRows(id);
    expect(summaries(rows)).toMatchObject([{ source: "manual" }]);
    expect(rows.filter((r) => r.role === "user" && r.model_only && !r.compressed).map(textOf)).toEqual([failing]);
    expect(textOf(rows.at(-1)!)).toBe(failing.split(" ").at(-1));
  });

  it("from E1: summarizes, then proceeds to the queued message", async () => {
    const u = await compactionUser({ contextLimit: 8000, compressionThreshold: 90 });
    const id = await start(u, `hello ${nonce()}`);
    await until(u, id, "waiting");
    // Three failures exhaust the two retries (about 3 s of backoff), leaving time to queue behind it.
    const failing = `/error 503 3 back-${nonce()}`;
    await send(u, id, failing);
    const queuedText = `queued ${nonce()}`;
    expect((await send(u, id, queuedText)).queued).toBe(true);
    await until(u, id, "error");
    await expectJson(await api(`/chats/${id}/compact`, { method: "POST", token: u.token }), 200);
    await expect.poll(async () => textOf((await storedRows(id)).at(-1)!), { timeout: 30_000, interval: 100 }).toBe(queuedText);
    await until(u, id, "waiting");
    const rows = await storedRows(id);
    expect(summaries(rows)).toMatchObject([{ source: "manual" }]);
    const visible = rows.filter((r) => !r.model_only && !r.compressed).map((r) => `${r.role}:${textOf(r)}`);
    expect(visible.slice(-4)).toEqual([
      `user:${failing}`,
      `assistant:${failing.split(" ").at(-1)}`,
      `user:${queuedText}`,
      `assistant:${queuedText}`,
    ]);
  });
});
