/**
 * Subagents across a crash: the runtime running a parent blocked in wait_agent (and its child)
 * dies; a new runtime takes both over after the sweep. The child's turn is redone, the parent's
 * wait_agent call runs again (tool calls are at least once), re-reads the child from Postgres and
 * is woken by the child's object: the parent ends with the full answer and exactly one child.
 * Own `wrangler dev` on a database of its own, 0.5 s heartbeats, 3 s stale threshold.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { WranglerDev } from "../../scripts/lib/wrangler-dev";
import { type Deployment, deployment, sweepNow, words } from "./support/deployment";

const deployments: Deployment[] = [];
afterAll(async () => {
  for (const d of deployments) await d.close();
});

interface Part {
  type: string;
  text?: string;
  tool_name?: string;
  result?: Record<string, unknown>;
}

describe("subagents across a runtime crash", () => {
  it("a parent killed mid-wait resumes, waits again and gets the child's whole answer", { timeout: 180_000 }, async () => {
    const d = await deployment("subagent_takeover", {});
    deployments.push(d);
    const { own, token } = d;
    const post = (dev: WranglerDev, path: string, body: unknown) =>
      fetch(`${dev.url}/api/v2${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const chat = async (id: string) =>
      (await own.pool.query<{ status: string; worker_id: string | null }>("SELECT status, worker_id FROM chats WHERE id = $1", [id]))
        .rows[0];
    const messages = async (id: string) =>
      (
        await own.pool.query<{ role: string; content: Part[] }>(
          "SELECT role, content FROM chat_messages WHERE chat_id = $1 AND NOT deleted AND NOT model_only ORDER BY id",
          [id],
        )
      ).rows;

    const first = await d.start();
    const answer = words(30);
    const spawn = { prompt: `/slow 200 ${answer}` };
    const created = await post(first, "/chats", { content: [{ type: "text", text: `/tool spawn_agent ${JSON.stringify(spawn)}` }] });
    expect(created.status).toBe(201);
    const parent = ((await created.json()) as { id: string }).id;
    await expect.poll(async () => (await chat(parent))?.status, { timeout: 30_000, interval: 50 }).toBe("waiting");
    const spawned = (await messages(parent)).flatMap((m) => m.content).find((p) => p.type === "tool-result");
    const child = String(spawned?.result?.agent_id);
    expect((await chat(child))?.status).toBe("running");

    const waitCall = `/tool wait_agent ${JSON.stringify({ agent_id: child, timeout_seconds: 120 })}`;
    expect((await post(first, `/chats/${parent}/messages`, { content: [{ type: "text", text: waitCall }] })).status).toBe(200);
    // The wait_agent call is committed and running (the parent's history ends with it).
    await expect
      .poll(async () => (await messages(parent)).at(-1)?.content.some((p) => p.type === "tool-call" && p.tool_name === "wait_agent"), {
        timeout: 30_000,
        interval: 50,
      })
      .toBe(true);
    expect((await chat(child))?.status).toBe("running");
    // The runtime dies at once, parent and child with it: no Abandon, leases left to go stale.
    process.kill(-first.pid, "SIGKILL");

    const second = await d.start();
    // Sweep until the leases have gone stale, the parent is taken over and done.
    await expect
      .poll(
        async () => {
          const status = (await chat(parent))?.status;
          if (status !== "waiting") await sweepNow(second);
          return status;
        },
        { timeout: 90_000, interval: 1_000 },
      )
      .toBe("waiting");

    const results = (await messages(parent)).flatMap((m) => m.content).filter((p) => p.type === "tool-result");
    expect(results.map((r) => r.tool_name)).toEqual(["spawn_agent", "wait_agent"]);
    expect(results[1]!.result).toMatchObject({ agent_id: child, done: true, status: "waiting", answer });
    // One child, one answer: nothing duplicated by the re-run.
    const children = (await own.pool.query("SELECT id FROM chats WHERE parent_chat_id = $1", [parent])).rows;
    expect(children).toHaveLength(1);
    const childMessages = await messages(child);
    expect(childMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(childMessages[1]!.content.map((p) => p.text ?? "").join("")).toBe(answer);
  });
});
