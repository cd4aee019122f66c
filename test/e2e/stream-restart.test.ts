/**
 * Hibernation and eviction, done for real: the runtime goes away while stream sockets are open and
 * a turn is streaming, then comes back on the same address and Durable Object storage: the eviction
 * a redeploy or a crashed host causes, with every socket dropped and every object rebuilt. (The
 * vitest plugin's evictDurableObject evicts only an idle object, and a chat object holding its
 * database connections never is: docs/toolchain.md.) The SDK's stream clients reconnect by
 * themselves with their cursors and must catch up without a gap or a re-sent message, and the turn
 * must land exactly once. Once with SIGKILL (a crash), once with a graceful stop (a redeploy or an
 * eviction).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createChat, type Deployment, deployment, STALE_THRESHOLD_MS, sweepNow, words } from "./support/deployment";
import { StreamWatch } from "./support/stream-watch";

const deployments: Deployment[] = [];
const watches: StreamWatch[] = [];
afterAll(async () => {
  for (const w of watches) w.close();
  for (const d of deployments) await d.close();
});

const api = async (url: string, token: string, path: string) => {
  const res = await fetch(`${url}/api/v2${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, `GET ${path}`).toBe(200);
  return res.json();
};

describe("stream clients across a runtime restart", () => {
  for (const how of ["SIGKILL", "graceful stop"] as const) {
    it(`resume with their cursors, catch up exactly and see the turn land once (${how})`, { timeout: 120_000 }, async () => {
      const d = await deployment(`restart-${how === "SIGKILL" ? "kill" : "stop"}`, { CHAT_STREAM_SYNC_POLL_MS: "2000" });
      deployments.push(d);
      const first = await d.start({ state: "h" });
      const port = Number(new URL(first.url).port);

      // A quiet chat, answered before the restart, and a chat whose 3.6 s answer streams through it.
      const quiet = await createChat(first, d.token, "before the restart");
      await expect
        .poll(async () => ((await api(first.url, d.token, `/chats/${quiet}`)) as { status: string }).status, { timeout: 20_000 })
        .toBe("waiting");
      const answer = words(60, "h");
      const busy = await createChat(first, d.token, `/slow 60 ${answer}`);
      const busyWatches = [new StreamWatch(first.url, d.token, busy), new StreamWatch(first.url, d.token, busy)];
      const quietWatch = new StreamWatch(first.url, d.token, quiet);
      watches.push(...busyWatches, quietWatch);
      // Mid-answer: each client holds a part of the preview and the user message.
      for (const w of busyWatches)
        await expect
          .poll(() => w.stream.state.preview?.lastSeq ?? 0, { timeout: 20_000, message: "busy chat's client to hold 5 streamed parts" })
          .toBeGreaterThanOrEqual(5);
      await expect.poll(() => quietWatch.stream.state.status, { timeout: 10_000 }).toBe("waiting");
      const before = (await d.own.pool.query("SELECT status, worker_id FROM chats WHERE id = $1", [busy])).rows[0];
      expect(before.status).toBe("running");

      if (how === "SIGKILL") process.kill(-first.pid, "SIGKILL");
      await first.stop();
      for (const w of [...busyWatches, quietWatch])
        await expect.poll(() => w.stream.connected, { timeout: 10_000, message: "the client to see its socket drop" }).toBe(false);
      const second = await d.start({ state: "h", port });
      expect(second.url).toBe(first.url);

      // The Cron Trigger's stand-in: sweep until the stale lease is taken over and the turn is done.
      const restarted = Date.now();
      await expect
        .poll(
          async () => {
            await sweepNow(second);
            return (await d.own.pool.query("SELECT status FROM chats WHERE id = $1", [busy])).rows[0].status;
          },
          { timeout: STALE_THRESHOLD_MS + 20_000, interval: 500, message: "the busy chat to finish its turn after the restart" },
        )
        .toBe("waiting");
      console.log(JSON.stringify({ event: "stream_restart", how, turn_done_ms: Date.now() - restarted }));

      // The turn landed once, whole.
      const rows = (
        await d.own.pool.query("SELECT id, role, content FROM chat_messages WHERE chat_id = $1 AND NOT deleted ORDER BY id", [busy])
      ).rows as { id: string; role: string; content: { text?: string }[] }[];
      expect(rows.map((r) => r.role)).toEqual(["user", "assistant"]);
      expect(rows[1]!.content.map((p) => p.text ?? "").join("")).toBe(answer);

      // Every client reconnected with its cursors and holds exactly what the API serves.
      for (const [w, id] of [...busyWatches.map((b) => [b, busy] as const), [quietWatch, quiet] as const]) {
        const served = async () => {
          const msgs = (await api(second.url, d.token, `/chats/${id}/messages`)) as {
            messages: { id: number; revision: number; content: unknown }[];
          };
          const chat = (await api(second.url, d.token, `/chats/${id}`)) as { status: string };
          return w.differences(msgs.messages, chat.status);
        };
        await expect.poll(served, { timeout: 15_000, message: `chat ${id}'s client to hold the API's history and status` }).toEqual([]);
        expect(w.connections.length, "connections of one client").toBeGreaterThanOrEqual(2);
        for (const conn of w.connections.slice(1)) {
          const cursors = new URL(conn.url).searchParams;
          expect(Number(cursors.get("history_version")), `a reconnect's cursors: ${conn.url}`).toBeGreaterThan(0);
        }
        expect(w.problems, "re-sent or out-of-order events").toEqual([]);
        expect(w.partGaps(), "part gaps").toEqual([]);
        // Resumed, not re-bootstrapped: what the client held before is not sent again.
        const userId = Number(rows[0]!.id); // bigint arrives as a string
        if (id === busy) {
          const sent = w.connections.flatMap((c) => c.events).filter((e) => e.type === "message" && e.message.id === userId);
          expect(sent.length, "the user message's events across every connection").toBe(1);
        } else {
          const after = w.connections.slice(1).flatMap((c) => c.events.filter((e) => e.type === "message"));
          expect(after, "messages re-sent to the quiet chat's client").toEqual([]);
        }
      }
      // The answer reached each busy client as one committed message, the preview gone.
      for (const w of busyWatches) {
        expect(w.stream.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
        expect(w.stream.state.preview).toBeNull();
      }
      for (const w of [...busyWatches, quietWatch]) w.close();
    });
  }
});
