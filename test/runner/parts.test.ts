/**
 * GET /chats/{chat}/stream/parts (spec "Parts endpoint"): episode selection by control message,
 * buffered parts then live ones with contiguous seq, a missing episode is no error, and switching
 * episodes on one connection.
 */
import { SELF } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { api, BASE, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { openParts, type PartFrame } from "./support/stream-client";
import { newGate, openGate } from "../support/fake-model-gate";

const textOf = (frames: PartFrame[]) => frames.map((f) => f.part.text ?? "").join("");
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

async function emptyChat(u: TestUser): Promise<{ id: string; snapshot_version: number }> {
  return expectJson(await api("/chats", { token: u.token, body: { content: [] } }), 201);
}

afterAll(() => releaseChatsOf(modelUsers), 60_000);

describe("the parts WebSocket", () => {
  it("streams a selected episode's parts with contiguous seq from 1, even when selected before it exists", async () => {
    const u = await userWithModel();
    const chat = await emptyChat(u);
    const { ws, frames } = await openParts(u, chat.id);
    // The send lands at the next snapshot; its first model attempt is 1.
    ws.send(JSON.stringify({ history_version: chat.snapshot_version + 1, generation_attempt: 1 }));
    const text = words(20, "a");
    await expectJson(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: [{ type: "text", text: `/slow 20 ${text}` }] } }),
      200,
    );
    await expect.poll(() => textOf(frames), { timeout: 15_000 }).toBe(text);
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    ws.close();
  });

  it("replays from seq 1 to a client that connects mid-generation, then goes on live", async () => {
    const u = await userWithModel();
    const chat = await emptyChat(u);
    const text = words(30, "b");
    const episode = JSON.stringify({ history_version: chat.snapshot_version + 1, generation_attempt: 1 });
    // The reply stops after its first token until the fake model's gate opens: mid-generation.
    const gate = newGate("parts");
    const early = await openParts(u, chat.id);
    early.ws.send(episode);
    await expectJson(
      await api(`/chats/${chat.id}/messages`, {
        token: u.token,
        body: { content: [{ type: "text", text: `/gate ${gate} 20 ${text}` }] },
      }),
      200,
    );
    await expect.poll(() => early.frames.length, { timeout: 15_000 }).toBe(1);
    // The late client gets the part so far from the buffer, then the rest live.
    const { ws, frames } = await openParts(u, chat.id);
    ws.send(episode);
    await expect.poll(() => frames.map((f) => f.seq)).toEqual([1]);
    await openGate(gate);
    await expect.poll(() => textOf(frames), { timeout: 15_000 }).toBe(text);
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(frames).toEqual(early.frames);
    ws.close();
    early.ws.close();
  });

  it("switches episodes on one connection", async () => {
    const u = await userWithModel();
    const chat = await emptyChat(u);
    const { ws, frames } = await openParts(u, chat.id);
    ws.send(JSON.stringify({ history_version: chat.snapshot_version + 1, generation_attempt: 1 }));
    await expectJson(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: [{ type: "text", text: "first turn" }] } }),
      200,
    );
    await expect.poll(() => textOf(frames), { timeout: 15_000 }).toBe("first turn");
    await expect
      .poll(async () => ((await expectJson(await api(`/chats/${chat.id}`, { token: u.token }), 200)) as { status: string }).status)
      .toBe("waiting");
    const current = (await expectJson(await api(`/chats/${chat.id}`, { token: u.token }), 200)) as { snapshot_version: number };
    const before = frames.length;
    ws.send(JSON.stringify({ history_version: current.snapshot_version + 1, generation_attempt: 1 }));
    await expectJson(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: [{ type: "text", text: "second turn" }] } }),
      200,
    );
    await expect.poll(() => textOf(frames.slice(before)), { timeout: 15_000 }).toBe("second turn");
    expect(frames.slice(before).map((f) => f.seq)).toEqual(frames.slice(before).map((_, i) => i + 1));
    ws.close();
  });

  it("closes the socket on a malformed selection, and refuses other users and plain GETs", async () => {
    const u = await userWithModel();
    const chat = await emptyChat(u);
    const { ws } = await openParts(u, chat.id);
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    ws.send("not json");
    expect(await closed).toBe(4400);
    const stranger = await userWithModel();
    const res = await SELF.fetch(`${BASE}/chats/${chat.id}/stream/parts?coder_session_token=${stranger.token}`, {
      headers: { Upgrade: "websocket" },
    });
    expect(res.status).toBe(404);
    expect((await api(`/chats/${chat.id}/stream/parts`, { token: u.token })).status).toBe(426);
  });
});
