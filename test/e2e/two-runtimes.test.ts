/**
 * Two runtimes, one database, as two colos would run: two `wrangler dev` processes with storage of
 * their own on one Postgres. Admission still caps the whole deployment (5 root chats here); a
 * chat whose object exists in both runtimes at once is still run by one owner and answered once;
 * the two runtimes' Cron sweeps, fired together, do not fight over chats.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import type { OwnDatabase } from "../db/support/own-database";
import { createChat, type Deployment, deployment, sweepNow, words } from "./support/deployment";
import { newGate, openGate } from "../support/fake-model-gate";
import { logOwners, ownedAndWaiting, ownersAtOnce } from "./support/owner-log";

let d: Deployment | undefined;
afterAll(async () => {
  await d?.close();
});

interface Row {
  id: string;
  status: string;
  worker_id: string | null;
}

async function rows(own: OwnDatabase): Promise<Row[]> {
  return (await own.pool.query("SELECT id, status, worker_id FROM chats ORDER BY created_at")).rows;
}

/** Each chat's committed (user, assistant) messages, in order. */
async function histories(own: OwnDatabase): Promise<Map<string, { role: string; text: string }[]>> {
  const { rows: messages } = await own.pool.query(
    "SELECT chat_id, role, content FROM chat_messages WHERE NOT deleted ORDER BY chat_id, id",
  );
  const out = new Map<string, { role: string; text: string }[]>();
  for (const m of messages as { chat_id: string; role: string; content: { text?: string }[] }[]) {
    const list = out.get(m.chat_id) ?? [];
    list.push({ role: m.role, text: m.content.map((p) => p.text ?? "").join("") });
    out.set(m.chat_id, list);
  }
  return out;
}

describe("two runtimes on one database", () => {
  it("cap the deployment together, run each chat once, and sweep side by side", { timeout: 240_000 }, async () => {
    d = await deployment("two-runtimes", { CHAT_ROOT_CONCURRENCY: "5" });
    const runtimes: WranglerDev[] = [await d.start({ state: "colo-a" }), await d.start({ state: "colo-b" })];
    await logOwners(d.own);

    // Eight chats, created alternately through each runtime, all at once: at most 5 may run at
    // once. Every answer holds after its first token until the gate opens, so the cap is reached
    // (five owned, three waiting for a slot) before any turn can end.
    const gate = newGate("two-runtimes");
    const created = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const answer = words(30, `c${i}w`);
        return [await createChat(runtimes[i % 2]!, d!.token, `/gate ${gate} 20 ${answer}`), answer] as const;
      }),
    );
    const answers = new Map<string, string>(created);
    // Both runtimes sweep, again and again, while the chats run: each sweep wakes every runnable
    // unowned chat in its own runtime, so every chat gets an object in both.
    let sweeping = true;
    const sweeps = (async () => {
      while (sweeping) {
        await Promise.all(runtimes.map((r) => sweepNow(r)));
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    try {
      // [owned, running without an owner]
      await expect.poll(() => ownedAndWaiting(d!.own), { timeout: 60_000, interval: 50 }).toEqual([5, 3]);
      await openGate(gate);
      await expect
        .poll(async () => (await rows(d!.own)).filter((r) => r.status === "waiting").length, { timeout: 180_000, interval: 50 })
        .toBe(8);
    } finally {
      sweeping = false;
      await sweeps;
    }
    // The cap: reached, never passed, by the database's own log of every acquisition and release.
    const owners = await ownersAtOnce(d.own);
    expect(owners.max).toBe(5);
    expect(owners.acquisitions).toBeGreaterThanOrEqual(8);

    // Every chat answered exactly once, with its own answer.
    const all = await histories(d.own);
    for (const [id, answer] of answers) {
      expect(all.get(id)?.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(all.get(id)?.[1]?.text).toBe(answer);
    }

    // One chat, a message sent through each runtime at once: both objects of the chat act, one
    // owner runs the turns, and each message is answered once.
    const [target] = answers.keys();
    const send = (dev: WranglerDev, text: string) =>
      fetch(`${dev.url}/api/v2/chats/${target}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${d!.token}`, "content-type": "application/json" },
        body: JSON.stringify({ content: [{ type: "text", text }], busy_behavior: "queue" }),
      });
    const [a, b] = await Promise.all([send(runtimes[0]!, `/slow 50 ${words(10, "a")}`), send(runtimes[1]!, `/slow 50 ${words(10, "b")}`)]);
    expect([a.status, b.status].every((s) => s === 200 || s === 201 || s === 202)).toBe(true);
    await expect
      .poll(
        async () => {
          await Promise.all(runtimes.map((r) => sweepNow(r)));
          return (await histories(d!.own)).get(target!)?.length;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(6);
    await expect.poll(async () => (await rows(d!.own)).find((r) => r.id === target)?.status, { timeout: 30_000 }).toBe("waiting");
    const history = (await histories(d.own)).get(target!)!;
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    // Each sent message is followed by its own answer, never a second copy of one.
    const answered = history.filter((m) => m.role === "assistant").map((m) => m.text);
    expect(new Set(answered).size).toBe(3);
    expect(answered.slice(1).sort()).toEqual([words(10, "a"), words(10, "b")].sort());
  });
});
