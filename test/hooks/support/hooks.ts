/**
 * What the lifecycle hook tests (test/hooks/*.test.ts) share: the test consumer's address and its
 * script and record endpoints (test/support/hook-consumer.ts), and the API calls they make.
 */
import { expect, inject } from "vitest";
import type { ConsumerStats, RecordedEvent, ScriptedAnswer } from "../../support/hook-consumer";
import { api, expectJson, type TestUser, withDb } from "../../worker/support/accounts";
import { chatMessages } from "../../../src/db/schema/chats";
import { eq } from "drizzle-orm";
import type { Message, Chat } from "../../runner/support/wire";

export const consumer = inject("hookConsumerUrl");
export const nonce = () => crypto.randomUUID().slice(0, 8);

export async function script(user: TestUser, event: string, answer: ScriptedAnswer | null): Promise<void> {
  const res = await fetch(`${consumer}/_script`, { method: "POST", body: JSON.stringify({ owner_id: user.id, event, answer }) });
  expect(res.status).toBe(200);
}

/** Lets the `count` oldest of the user's held `event` requests answer. */
export async function release(user: TestUser, event: string, count: number): Promise<void> {
  const res = await fetch(`${consumer}/_release`, { method: "POST", body: JSON.stringify({ owner_id: user.id, event, count }) });
  expect(res.status).toBe(200);
}

/** The consumer's counts of the user's `event` requests: in flight now, at most at once, arrived. */
export async function statsOf(user: TestUser, event: string): Promise<ConsumerStats> {
  return (await fetch(`${consumer}/_stats?owner_id=${user.id}&event=${event}`)).json() as Promise<ConsumerStats>;
}

export async function eventsOf(user: TestUser): Promise<RecordedEvent[]> {
  return (await fetch(`${consumer}/_events?owner_id=${user.id}`)).json();
}

export const names = (events: RecordedEvent[]) => events.map((e) => e.envelope.event);

export async function chatOf(user: TestUser, id: string): Promise<Chat> {
  return expectJson<Chat>(await api(`/chats/${id}`, { token: user.token }), 200);
}

export async function messagesOf(user: TestUser, id: string): Promise<Message[]> {
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages;
}

export async function until(user: TestUser, id: string, status: string): Promise<Chat> {
  await expect.poll(async () => (await chatOf(user, id)).status, { timeout: 30_000, interval: 100 }).toBe(status);
  return chatOf(user, id);
}

export async function start(user: TestUser, text: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return api("/chats", { token: user.token, body: { content: [{ type: "text", text }], ...extra } });
}

export async function started(user: TestUser, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  return (await expectJson<{ id: string }>(await start(user, text, extra), 201)).id;
}

export async function send(user: TestUser, id: string, text: string): Promise<Response> {
  return api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } });
}

export async function newProject(user: TestUser): Promise<string> {
  const res = await api(`/organizations/${user.organizationId}/projects`, { token: user.token, body: { name: `p-${nonce()}` } });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

export async function memoriesOf(user: TestUser, projectId: string): Promise<{ name: string; content: string }[]> {
  return expectJson(await api(`/organizations/${user.organizationId}/projects/${projectId}/memories`, { token: user.token }), 200);
}

export const textOf = (m: Message | undefined) =>
  (m?.content ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
export const results = (messages: Message[]) => messages.flatMap((m) => m.content).filter((p) => p.type === "tool-result");

/** Every row of the chat, model-only ones too (the API hides those). */
export async function rowsOf(id: string) {
  return withDb((db) => db.select().from(chatMessages).where(eq(chatMessages.chatId, id)).orderBy(chatMessages.id));
}
