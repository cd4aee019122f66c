/**
 * Chat titles (spec "Core state machine" > titles; the context issue's titles): the fallback title
 * from the first prompt, then a generated one after the first turn from a background,
 * non-streaming call to the chat's model (the fake model echoes the prompt it is given, so the
 * generated title is the first prompt's text without its directive), never over a user title, and
 * pushed to open streams as `title_change`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { openStream } from "./support/stream-client";
import { requestsWith } from "../support/fake-model-requests";

interface Chat {
  id: string;
  status: string;
  title: string;
  title_source: string;
  title_updated_at: string;
}

const nonce = () => crypto.randomUUID().slice(0, 8);

const chatOf = async (user: TestUser, id: string) => expectJson<Chat>(await api(`/chats/${id}`, { token: user.token }), 200);

async function create(user: TestUser, text: string | null, extra: Record<string, unknown> = {}): Promise<Chat> {
  const content = text === null ? [] : [{ type: "text", text }];
  return expectJson<Chat>(await api("/chats", { token: user.token, body: { content, ...extra } }), 201);
}

async function send(user: TestUser, id: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } }), 200);
}

/** Waits for the chat's title source to become `source`. */
async function titleSource(user: TestUser, id: string, source: string, timeoutMs = 20_000): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).title_source, { timeout: timeoutMs, interval: 100 }).toBe(source);
  return chatOf(user, id);
}

async function settled(user: TestUser, id: string): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).status, { timeout: 20_000, interval: 100 }).toBe("waiting");
  return chatOf(user, id);
}

/** How many of the fake model's requests carry `text`: a chat's turns and its title calls. */
const modelRequests = async (text: string): Promise<number> => (await requestsWith(text)).length;

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("titles", () => {
  it("a chat created with a prompt has the fallback title, then a generated one after its first turn", async () => {
    const u = await userWithModel();
    const text = `Plan a trip to Lisbon ${nonce()}`;
    const created = await create(u, `/slow 30 ${text}`);
    expect(created.title_source).toBe("fallback");
    expect(created.title).toBe(`/slow 30 ${text}`);
    const titled = await titleSource(u, created.id, "generated");
    // The fake model echoes the title call's user message: the first prompt, directive applied.
    expect(titled.title).toBe(text);
    expect(Date.parse(titled.title_updated_at)).toBeGreaterThanOrEqual(Date.parse(created.title_updated_at));
    // The turn's request and the title's both carry the owner's attribution for this chat.
    const log = { requests: await requestsWith(text) };
    expect(log.requests).toHaveLength(2);
    const metadata = log.requests.map((r) => JSON.parse(r.headers["cf-aig-metadata"] ?? "{}") as Record<string, string>);
    expect(metadata[0]).toMatchObject({ chat_id: created.id });
    expect(metadata[1]).toEqual(metadata[0]);
  });

  it("a chat created empty is New Chat until its first message, which titles it, then the title is generated", async () => {
    const u = await userWithModel();
    const created = await create(u, null);
    expect(created).toMatchObject({ title: "New Chat", title_source: "fallback", status: "waiting" });
    const text = `Explain websockets ${nonce()}`;
    // A slow turn (4 tokens, 500 ms apart): the title call only starts once it is over.
    await send(u, created.id, `/slow 500 ${text}`);
    expect(await chatOf(u, created.id)).toMatchObject({ title: `/slow 500 ${text}`, title_source: "fallback" });
    const titled = await titleSource(u, created.id, "generated");
    expect(titled.title).toBe(text);
  });

  it("never overwrites a user title, even one set while the first turn runs", async () => {
    const u = await userWithModel();
    const first = nonce();
    const created = await create(u, `/slow 150 one two three four five six ${first}`);
    const userTitle = `Mine ${nonce()}`;
    await expectJson(await api(`/chats/${created.id}`, { token: u.token, method: "PATCH", body: { title: userTitle } }), 200);
    await settled(u, created.id);
    // A second turn finishes too: still nothing may replace the user's title. A title call starts
    // as a turn ends, so by the time the second turn's request is made the first turn's title call
    // would have been too; it would carry the first prompt, as the first turn's request does.
    const second = nonce();
    await send(u, created.id, `again ${second}`);
    await settled(u, created.id);
    expect(await modelRequests(second)).toBe(1);
    expect(await modelRequests(first)).toBe(1);
    expect(await chatOf(u, created.id)).toMatchObject({ title: userTitle, title_source: "user" });
  });

  it("a chat created with a title keeps it and never generates one", async () => {
    const u = await userWithModel();
    const first = nonce();
    const created = await create(u, `hello ${first}`, { title: "Given" });
    await settled(u, created.id);
    // As above: the next turn's request comes after any title call the first turn's end started.
    const second = nonce();
    await send(u, created.id, `again ${second}`);
    await settled(u, created.id);
    expect(await modelRequests(second)).toBe(1);
    expect(await modelRequests(first)).toBe(1);
    expect(await chatOf(u, created.id)).toMatchObject({ title: "Given", title_source: "user" });
  });

  it("a failing title call leaves the fallback title and the chat usable", async () => {
    const u = await userWithModel();
    // Streaming turns echo; the non-streaming title call gets 503 on every attempt (2 retries here).
    const tag = nonce();
    const created = await create(u, `/nonstream-error 503 fine ${tag}`);
    await settled(u, created.id);
    // The turn's request, then the title call's three attempts (1 s and 2 s of backoff), each
    // answered 503: out of retries, the title is left as it was.
    await expect.poll(() => modelRequests(tag), { timeout: 15_000, interval: 200 }).toBe(4);
    const after = await chatOf(u, created.id);
    expect(after).toMatchObject({ title: created.title, title_source: "fallback", status: "waiting" });
    await send(u, created.id, `still works ${nonce()}`);
    expect((await settled(u, created.id)).status).toBe("waiting");
    const { messages } = await expectJson<{ messages: { role: string }[] }>(
      await api(`/chats/${created.id}/messages`, { token: u.token }),
      200,
    );
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("open streams see the title change without reloading", async () => {
    const u = await userWithModel();
    const created = await create(u, null);
    const client = await openStream(u, created.id);
    const text = `Stream my title ${nonce()}`;
    await send(u, created.id, text);
    await client.until((e) => e.type === "title_change" && e.title?.title_source === "fallback" && e.title.title === text);
    await client.until((e) => e.type === "title_change" && e.title?.title_source === "generated");
    const stored = await chatOf(u, created.id);
    const last = client.events.filter((e) => e.type === "title_change").at(-1);
    expect(last?.title).toEqual({ title: stored.title, title_source: stored.title_source, title_updated_at: stored.title_updated_at });
    // And a user rename is pushed the same way.
    await expectJson(await api(`/chats/${created.id}`, { token: u.token, method: "PATCH", body: { title: "Renamed" } }), 200);
    await client.until((e) => e.type === "title_change" && e.title?.title === "Renamed" && e.title.title_source === "user");
    client.ws.close();
  });
});
