/**
 * Chat titles (spec "Core state machine" > titles, "POST /api/v2/chats"): the fallback title from
 * the first prompt, and the generated one whose call starts as soon as that prompt exists (create
 * with content, or the first message), from a background, non-streaming call to the chat's model,
 * whatever the turn then does. The fake model echoes the title call's user message (the first
 * prompt, its directive applied), so a generated title is the first prompt's text. Never over a
 * user title; pushed to open streams as `title_change`; retried by the cron when a chat was left
 * without one.
 */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { chats } from "../../src/db/schema/chats";
import { createPool } from "../../src/db/client";
import { findUntitledChats, TITLE_RETRY_AFTER_MS } from "../../src/chats/title";
import { chatObjectStub } from "../../src/placement/chat-object-stub";
import { titleRetryTick } from "../../src/cron/titles";
import { api, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { openStream, openWatch, type WatchEvent } from "./support/stream-client";
import { titleRequestsWith, turnRequestsWith } from "../support/fake-model-requests";
import { newGate, openGate } from "../support/fake-model-gate";

interface Chat {
  id: string;
  status: string;
  title: string;
  title_source: string;
  title_updated_at: string;
  last_error: { message: string } | null;
  summary: string | null;
  last_turn_summary: string | null;
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

async function settled(user: TestUser, id: string, status = "waiting"): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).status, { timeout: 20_000, interval: 100 }).toBe(status);
  return chatOf(user, id);
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("titles", () => {
  it("a chat created with a prompt gets its generated title while the first turn still runs", async () => {
    const u = await userWithModel();
    const gate = newGate("title");
    const text = `Plan a trip to Lisbon ${nonce()}`;
    // The turn streams one token and holds there until the gate opens; the title call is not held.
    const created = await create(u, `/gate ${gate} 1 ${text}`);
    expect(created.title_source).toBe("fallback");
    expect(created.title.startsWith(`/gate ${gate} 1 Plan`)).toBe(true);
    const titled = await titleSource(u, created.id, "generated");
    expect(titled.title).toBe(text);
    expect(titled.status).toBe("running");
    expect(Date.parse(titled.title_updated_at)).toBeGreaterThanOrEqual(Date.parse(created.title_updated_at));
    await openGate(gate);
    await settled(u, created.id);
    // The turn's request and the title's both carry the owner's attribution for this chat.
    const [turn] = await turnRequestsWith(text);
    const [title, ...more] = await titleRequestsWith(text);
    expect(more).toEqual([]);
    const metadata = [turn, title].map((r) => JSON.parse(r?.headers["cf-aig-metadata"] ?? "{}") as Record<string, string>);
    expect(metadata[0]).toMatchObject({ chat_id: created.id });
    expect(metadata[1]).toEqual(metadata[0]);
  });

  it("a chat whose first turn errors still gets its title", async () => {
    const u = await userWithModel();
    const text = `Why does my build fail ${nonce()}`;
    // Every streaming request breaks off with the provider's 400 error; non-streaming ones (the
    // title call) answer the text.
    const created = await create(u, `/midstream-error 400 99 ${text}`);
    const failed = await settled(u, created.id, "error");
    expect(failed.last_error).not.toBeNull();
    const titled = await titleSource(u, created.id, "generated");
    expect(titled).toMatchObject({ title: text, status: "error" });
    expect(await titleRequestsWith(text)).toHaveLength(1);
    // No turn finished: nothing to summarize.
    expect(titled).toMatchObject({ summary: null, last_turn_summary: null });
  });

  it("a chat created empty is New Chat until its first message, which titles it and starts the title call", async () => {
    const u = await userWithModel();
    const created = await create(u, null);
    expect(created).toMatchObject({ title: "New Chat", title_source: "fallback", status: "waiting" });
    const text = `Explain websockets ${nonce()}`;
    const gate = newGate("first-message");
    await send(u, created.id, `/gate ${gate} 1 ${text}`);
    // The fallback title, cut near 80 characters, until the generated one lands.
    expect((await chatOf(u, created.id)).title.startsWith(`/gate ${gate} 1 Explain`)).toBe(true);
    const titled = await titleSource(u, created.id, "generated");
    expect(titled).toMatchObject({ title: text, status: "running" });
    await openGate(gate);
    await settled(u, created.id);
  });

  it("never overwrites a user title, even one set while the title call runs", async () => {
    const u = await userWithModel();
    const first = nonce();
    // The title call answers after (7 - 1) × 150 ms; the rename lands before it.
    const created = await create(u, `/slow 150 one two three four five six ${first}`);
    // The rename waits for the title call to reach the model: sent at once, it could land before
    // the call starts on a loaded machine, and then no call runs at all.
    await expect.poll(() => titleRequestsWith(first).then((r) => r.length), { timeout: 10_000 }).toBe(1);
    const userTitle = `Mine ${nonce()}`;
    await expectJson(await api(`/chats/${created.id}`, { token: u.token, method: "PATCH", body: { title: userTitle } }), 204);
    await settled(u, created.id);
    // A second turn finishes too: no title call starts, nothing replaces the user's title.
    const second = nonce();
    await send(u, created.id, `again ${second}`);
    await settled(u, created.id);
    expect(await titleRequestsWith(second)).toEqual([]);
    expect(await titleRequestsWith(first)).toHaveLength(1);
    expect(await chatOf(u, created.id)).toMatchObject({ title: userTitle, title_source: "user" });
  });

  it("a chat created with a title keeps it and never generates one", async () => {
    const u = await userWithModel();
    const first = nonce();
    const created = await create(u, `hello ${first}`, { title: "Given" });
    await settled(u, created.id);
    const second = nonce();
    await send(u, created.id, `again ${second}`);
    await settled(u, created.id);
    expect(await titleRequestsWith(first)).toEqual([]);
    expect(await chatOf(u, created.id)).toMatchObject({ title: "Given", title_source: "user" });
  });

  it("a failing title call leaves the fallback title and the chat usable", async () => {
    const u = await userWithModel();
    // Streaming turns echo; non-streaming calls (title, summary) get 503 on every attempt (2 retries here).
    const tag = nonce();
    const created = await create(u, `/nonstream-error 503 fine ${tag}`);
    await settled(u, created.id);
    // The title call's three attempts (0.4 s and 0.8 s of backoff), each answered 503: out of
    // retries, the title is left as it was.
    await expect.poll(() => titleRequestsWith(tag).then((r) => r.length), { timeout: 15_000, interval: 200 }).toBe(3);
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

  it("the cron titles a chat left without a title (its object died before the call)", async () => {
    const u = await userWithModel();
    const text = `Compare two databases ${nonce()}`;
    const created = await create(u, text);
    await titleSource(u, created.id, "generated");
    await settled(u, created.id);
    // As a crash would leave it: the attempt taken, no title written.
    await withDb((db) => db.update(chats).set({ title: text, titleSource: "fallback", titleAttempts: 1 }).where(eq(chats.id, created.id)));
    const pool = createPool({ databaseUrl: env.DATABASE_URL, wsProxy: env.NEON_WS_PROXY, max: 1 });
    try {
      // Not yet: its attempt is recent.
      expect(await findUntitledChats(pool, new Date(), 1_000)).not.toContain(created.id);
      // Past TITLE_RETRY_AFTER_MS: the tick asks the chat's object, which makes the call. (Other
      // files' chats the tick finds at that time are left alone; the limit reaches past them all,
      // since a whole suite's untitled chats are older than this one.)
      const later = new Date(Date.now() + TITLE_RETRY_AFTER_MS + 60_000);
      const tick = await titleRetryTick(pool, { retryTitle: onlyThis(created.id) }, { now: later, limit: 100_000 });
      expect(tick.failed).toBe(0);
    } finally {
      await pool.end();
    }
    const titled = await titleSource(u, created.id, "generated");
    expect(titled.title).toBe(text);
    expect((await titleRequestsWith(text)).length).toBe(2);
    const [row] = await withDb((db) => db.select({ attempts: chats.titleAttempts }).from(chats).where(eq(chats.id, created.id)));
    expect(row?.attempts).toBe(2);
  });

  it("the owner's chat list watch sees each title change without reloading, and the stream carries none", async () => {
    const u = await userWithModel();
    const watch = await openWatch(u);
    const created = await create(u, null);
    const stream = await openStream(u, created.id);
    const text = `Stream my title ${nonce()}`;
    await send(u, created.id, text);
    const titled = (source: string) => (e: WatchEvent) => e.kind === "title_change" && e.chat.title_source === source;
    expect((await watch.until(created.id, titled("fallback"))).chat.title).toBe(text);
    await watch.until(created.id, titled("generated"));
    const stored = await chatOf(u, created.id);
    const last = watch.events.filter((e) => e.chat.id === created.id && e.kind === "title_change").at(-1);
    expect(last?.chat).toMatchObject({ title: stored.title, title_source: stored.title_source, title_updated_at: stored.title_updated_at });
    // And a user rename is pushed the same way.
    await expectJson(await api(`/chats/${created.id}`, { token: u.token, method: "PATCH", body: { title: "Renamed" } }), 204);
    await watch.until(created.id, (e) => e.kind === "title_change" && e.chat.title === "Renamed" && e.chat.title_source === "user");
    // The stream sends the spec's nine events only (Coder's decoder refuses any other).
    expect(stream.events.filter((e) => e.type.endsWith("_change"))).toEqual([]);
    stream.ws.close();
    watch.ws.close();
  });
});

/** A retry target that reaches `chatId`'s object and ignores every other chat. */
function onlyThis(chatId: string) {
  return async (id: string) => {
    if (id === chatId) await chatObjectStub(env, id).retryTitle(id);
  };
}
