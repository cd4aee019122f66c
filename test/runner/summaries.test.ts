/**
 * The chat's summary and turn status label (docs/titles.md "Summaries and status labels"): one
 * background call after each finished turn of a root chat, over the real wire format, answered by
 * the fake model as a model following the instructions would (`Summary: The user asked: <first
 * prompt>`, `Status: Replied to: <the last turn's prompt>`). Returned on the chat and in the list,
 * and pushed to open streams as `summary_change`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel, userWithProvider } from "./support/model-user";
import { openWatch } from "./support/stream-client";
import { summaryRequestsWith } from "../support/fake-model-requests";

interface Chat {
  id: string;
  status: string;
  summary: string | null;
  last_turn_summary: string | null;
  summary_updated_at: string | null;
}

const nonce = () => crypto.randomUUID().slice(0, 8);

const chatOf = async (user: TestUser, id: string) => expectJson<Chat>(await api(`/chats/${id}`, { token: user.token }), 200);

async function create(user: TestUser, text: string): Promise<Chat> {
  return expectJson<Chat>(await api("/chats", { token: user.token, body: { content: [{ type: "text", text }] } }), 201);
}

async function send(user: TestUser, id: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } }), 200);
}

/** Waits until the chat's status label is `label`. */
async function labelled(user: TestUser, id: string, label: string): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).last_turn_summary, { timeout: 20_000, interval: 100 }).toBe(label);
  return chatOf(user, id);
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("summaries and status labels", () => {
  it("each finished turn writes the chat's summary and what the turn did, on the chat and in the list", async () => {
    const u = await userWithModel();
    const first = `Plan a week in Porto ${nonce()}`;
    const created = await create(u, first);
    expect(created).toMatchObject({ summary: null, last_turn_summary: null, summary_updated_at: null });
    const one = await labelled(u, created.id, `Replied to: ${first}`);
    expect(one.summary).toBe(`The user asked: ${first}`);
    expect(one.status).toBe("waiting");
    // One call for the turn, its transcript carrying the prompt and the answer.
    const [call, ...more] = await summaryRequestsWith(first);
    expect(more).toEqual([]);
    expect(call?.params.stream).not.toBe(true);

    const second = `Add a day trip to Braga ${nonce()}`;
    await send(u, created.id, second);
    const two = await labelled(u, created.id, `Replied to: ${second}`);
    // The summary covers the whole chat (its first prompt); the label, the last turn.
    expect(two.summary).toBe(`The user asked: ${first}`);
    expect(Date.parse(two.summary_updated_at ?? "")).toBeGreaterThan(Date.parse(one.summary_updated_at ?? ""));
    expect(await summaryRequestsWith(second)).toHaveLength(1);
    const chats = await expectJson<Chat[]>(await api("/chats?limit=50", { token: u.token }), 200);
    expect(chats.find((c) => c.id === created.id)).toMatchObject({ summary: two.summary, last_turn_summary: two.last_turn_summary });
  });

  it("works over Anthropic Messages too", async () => {
    const u = await userWithProvider("anthropic", "claude-fake");
    const text = `Review my essay ${nonce()}`;
    const created = await create(u, text);
    const done = await labelled(u, created.id, `Replied to: ${text}`);
    expect(done.summary).toBe(`The user asked: ${text}`);
    expect((await summaryRequestsWith(text)).map((r) => r.endpoint)).toEqual(["messages"]);
  });

  it("the owner's chat list watch gets summary_change as it is written", async () => {
    const u = await userWithModel();
    const text = `Stream my summary ${nonce()}`;
    const watch = await openWatch(u);
    const created = await create(u, text);
    await watch.until(created.id, (e) => e.kind === "summary_change" && e.chat.last_turn_summary === `Replied to: ${text}`);
    // The chat's own worker moved it too: created (running, unless the turn was already over when
    // the watch read it), then waiting once its turn ended.
    const seen = watch.events.filter((e) => e.chat.id === created.id);
    expect(seen[0]?.kind).toBe("created");
    if (seen[0]?.chat.status === "running") expect(seen.some((e) => e.kind === "status_change" && e.chat.status === "waiting")).toBe(true);
    expect(seen.at(-1)?.chat.status).toBe("waiting");
    const stored = await chatOf(u, created.id);
    const last = watch.events.filter((e) => e.chat.id === created.id && e.kind === "summary_change").at(-1);
    expect(last?.chat).toMatchObject({
      summary: stored.summary,
      last_turn_summary: stored.last_turn_summary,
      summary_updated_at: stored.summary_updated_at,
    });
    watch.ws.close();
  });

  it("a summary call out of retries leaves the chat as it was", async () => {
    const u = await userWithModel();
    const first = `Sketch a logo ${nonce()}`;
    const created = await create(u, first);
    await labelled(u, created.id, `Replied to: ${first}`);
    // The second turn's prompt makes every non-streaming call answer 503: the summary call's three
    // attempts (0.4 s and 0.8 s apart) fail, and the first turn's summary and label stay.
    const tag = nonce();
    await send(u, created.id, `/nonstream-error 503 again ${tag}`);
    await expect.poll(() => summaryRequestsWith(tag).then((r) => r.length), { timeout: 15_000, interval: 200 }).toBe(3);
    expect(await chatOf(u, created.id)).toMatchObject({
      status: "waiting",
      summary: `The user asked: ${first}`,
      last_turn_summary: `Replied to: ${first}`,
    });
  });
});
