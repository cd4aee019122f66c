/** The chat as hook payloads show it. */
import type { ChatRow } from "../db/schema/chats";
import type { HookChat } from "./events";

export function hookChat(chat: Pick<ChatRow, "id" | "organizationId" | "ownerId" | "parentChatId">): HookChat {
  return { id: chat.id, organization_id: chat.organizationId, owner_id: chat.ownerId, parent_chat_id: chat.parentChatId };
}

/** The text of a message's parts, as `prompt` in user_prompt_submit and `last_assistant_text` in stop. */
export function textOf(parts: readonly { type: string; text?: string }[]): string {
  return parts
    .filter((p) => p.type === "text")
    .map((p) => p.text ?? "")
    .join("");
}
