/**
 * Stable event ids (spec "Lifecycle hooks": "the consumer owns ... deduplication based on stable
 * event identifiers"). An id is derived from the chat id, the event and what triggered it (a tool
 * call id, the history version a turn finished at, the snapshot a submission was made against), so
 * a retried task or a takeover by another runtime sends the same id again; nothing is stored.
 */
import type { HookEventName } from "./events";

export async function hookEventId(chatId: string, event: HookEventName, ...trigger: readonly (string | number)[]): Promise<string> {
  const material = [chatId, event, ...trigger.map(String)].join("\u0000");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(material));
  return `evt_${hex(digest).slice(0, 32)}`;
}

export function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
