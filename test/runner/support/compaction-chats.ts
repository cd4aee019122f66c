/**
 * What the compaction tests (test/runner/automatic-compaction.test.ts and
 * manual-compaction.test.ts) share: a chat's status, its calls, and the summaries it stored.
 */
import { expect } from "vitest";
import { api, expectJson, type TestUser } from "../../worker/support/accounts";
import type { StoredRow } from "./compaction-models";

export interface Chat {
  id: string;
  status: string;
  last_error: { message: string } | null;
}

export const nonce = () => crypto.randomUUID().slice(0, 8);

export const chatOf = async (u: TestUser, id: string) => expectJson<Chat>(await api(`/chats/${id}`, { token: u.token }), 200);

export async function until(u: TestUser, id: string, status: string, timeoutMs = 30_000): Promise<Chat> {
  await expect.poll(async () => (await chatOf(u, id)).status, { timeout: timeoutMs, interval: 100 }).toBe(status);
  return chatOf(u, id);
}

export async function start(u: TestUser, text: string): Promise<string> {
  const res = await api("/chats", { token: u.token, body: { content: [{ type: "text", text }] } });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

export async function send(u: TestUser, id: string, text: string): Promise<{ queued: boolean }> {
  return expectJson(await api(`/chats/${id}/messages`, { token: u.token, body: { content: [{ type: "text", text }] } }), 200);
}

export const textOf = (row: StoredRow) =>
  row.content
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");

/** The chat_summarized tool results, oldest first. */
export const summaries = (rows: StoredRow[]) =>
  rows.flatMap((r) => r.content.filter((p) => p.type === "tool-result" && p.tool_name === "chat_summarized").map((p) => p.result ?? {}));
