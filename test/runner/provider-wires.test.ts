/**
 * A reply's reasoning, its several text blocks, and a provider's error in the middle of a stream,
 * over each provider's real wire (the fake model's `/think` and `/midstream-error`), through the
 * chat's commit, its stream and its parts endpoint.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ProviderType } from "../../src/model-configs/providers";
import { api, expectJson, type TestUser } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithProvider } from "./support/model-user";
import { openParts, openStream, type PartFrame, type StreamEvent } from "./support/stream-client";
import { newGate, openGate } from "../support/fake-model-gate";
import { turnRequestsWith } from "../support/fake-model-requests";

interface Part {
  type: string;
  text?: string;
}
/**
 * `reasoning`: the provider reads reasoning off this wire (OpenAI's own Chat Completions sends none).
 * `blocks`: the wire has text blocks (Chat Completions streams one text).
 */
const WIRES: { name: string; type: ProviderType; model: string; reasoning: boolean; blocks: boolean }[] = [
  { name: "OpenAI-compatible Chat Completions", type: "openai-compatible", model: "fake", reasoning: true, blocks: false },
  { name: "OpenAI Chat Completions", type: "openai", model: "gpt-4o", reasoning: false, blocks: false },
  { name: "OpenAI Responses", type: "openai", model: "gpt-5", reasoning: true, blocks: true },
  { name: "Anthropic Messages", type: "anthropic", model: "claude-sonnet-4-6", reasoning: true, blocks: true },
];

afterAll(() => releaseChatsOf(modelUsers), 60_000);

async function emptyChat(u: TestUser): Promise<{ id: string; snapshot_version: number }> {
  return expectJson(await api("/chats", { token: u.token, body: { content: [] } }), 201);
}

/**
 * The parts endpoint, following attempt `attempt` of the chat's next send, selected before the send.
 * A socket gets the parts of an episode it follows while the episode is live: the replies here are
 * held at a gate until it has the first (a reply over before its Sync has none to relay).
 */
async function partsOfNextSend(u: TestUser, chat: { id: string; snapshot_version: number }, attempt = 1): Promise<PartFrame[]> {
  const { ws, frames } = await openParts(u, chat.id);
  ws.send(JSON.stringify({ history_version: chat.snapshot_version + 1, generation_attempt: attempt }));
  return frames;
}

async function send(u: TestUser, chatId: string, text: string): Promise<void> {
  await expectJson(await api(`/chats/${chatId}/messages`, { token: u.token, body: { content: [{ type: "text", text }] } }), 200);
}

async function settled(u: TestUser, chatId: string): Promise<{ role: string; content: Part[] }[]> {
  const status = async () => (await expectJson<{ status: string }>(await api(`/chats/${chatId}`, { token: u.token }), 200)).status;
  await expect.poll(status, { timeout: 20_000, interval: 100 }).toBe("waiting");
  return (
    await expectJson<{ messages: { role: string; content: Part[] }[] }>(await api(`/chats/${chatId}/messages`, { token: u.token }), 200)
  ).messages;
}

/** Type and text of each part (reasoning parts may carry provider metadata besides). */
const shape = (parts: Part[]) => parts.map((p) => ({ type: p.type, text: p.text }));
/** The text streamed as parts of `type` (`text`, `reasoning`), joined. */
const streamed = (parts: Part[], type: string) =>
  parts
    .filter((p) => p.type === type)
    .map((p) => p.text ?? "")
    .join("");
const partsOf = (frames: PartFrame[]) => frames.map((f) => f.part);
const committedAssistant = (events: StreamEvent[]) => events.find((e) => e.type === "message" && e.message?.role === "assistant");

describe.each(WIRES)("over $name", (wire) => {
  it("reasoning and each text block are committed as parts, and streamed as they came", async () => {
    const u = await userWithProvider(wire.type, wire.model);
    const chat = await emptyChat(u);
    const stream = await openStream(u, chat.id);
    const parts = await partsOfNextSend(u, chat);
    const tag = crypto.randomUUID().slice(0, 8);
    // Held after its first token until the parts socket has it: from then on it follows live.
    const gate = newGate("wires");
    await send(u, chat.id, `/gate ${gate} 5 /think weigh ${tag} first :: the answer ${tag} :: a second block`);
    await expect.poll(() => parts.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await openGate(gate);

    const assistant = (await settled(u, chat.id)).filter((m) => m.role === "assistant");
    expect(assistant).toHaveLength(1);
    const reasoning = wire.reasoning ? [{ type: "reasoning", text: `weigh ${tag} first` }] : [];
    const text = wire.blocks
      ? [
          { type: "text", text: `the answer ${tag}` },
          { type: "text", text: "a second block" },
        ]
      : [{ type: "text", text: `the answer ${tag}a second block` }];
    expect(shape(assistant[0]!.content)).toEqual([...reasoning, ...text]);

    // The stream's committed message is the one read back; the parts streamed the same texts, the
    // reasoning first.
    await stream.until((e) => e.type === "message" && e.message?.role === "assistant");
    expect(shape(committedAssistant(stream.events)!.message!.content)).toEqual([...reasoning, ...text]);
    const joined = text.map((p) => p.text).join("");
    await expect.poll(() => streamed(partsOf(parts), "text")).toBe(joined);
    expect(streamed(partsOf(parts), "reasoning")).toBe(wire.reasoning ? `weigh ${tag} first` : "");
    const types = partsOf(parts).map((p) => p.type);
    expect(types.lastIndexOf("reasoning")).toBeLessThan(types.indexOf("text"));
    stream.ws.close();
  });

  it("an error event in the middle of the stream is retried: the partial answer is dropped, the full one committed once", async () => {
    const u = await userWithProvider(wire.type, wire.model);
    const chat = await emptyChat(u);
    const stream = await openStream(u, chat.id);
    const first = await partsOfNextSend(u, chat, 1);
    const tag = crypto.randomUUID().slice(0, 8);
    // The first request streams "one two three" and then the provider's overloaded error; the
    // second answers in full. The first is held after "one" until the parts socket has it.
    const gate = newGate("wires");
    await send(u, chat.id, `/midstream-error 529 1 /gate ${gate} 5 one two three four ${tag}`);
    await expect.poll(() => first.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await openGate(gate);

    const assistant = (await settled(u, chat.id)).filter((m) => m.role === "assistant");
    expect(shape(assistant.flatMap((m) => m.content))).toEqual([{ type: "text", text: `one two three four ${tag}` }]);
    await stream.until((e) => e.type === "message" && e.message?.role === "assistant");
    expect(stream.events.some((e) => e.type === "retry")).toBe(true);
    expect(stream.events.some((e) => e.type === "error")).toBe(false);
    // The parts of the failed attempt stop where its stream broke.
    expect(streamed(partsOf(first), "text")).toBe("one two three");

    expect(await turnRequestsWith(tag)).toHaveLength(2);
    stream.ws.close();
  });
});
