/**
 * The caller's chat for a read-only route. A missing chat and another user's answer alike, 404
 * (docs/api.md "Auth": the caller never learns that it exists); the error mapping turns ChatNotFoundError into it.
 */
import type { Context } from "hono";
import { ChatNotFoundError } from "../chatstate/index";
import { getChat } from "../chats/queries";
import type { ChatRow } from "../db/schema/chats";
import type { AppEnv } from "./app-env";

export async function ownedChat(c: Context<AppEnv>, chatId: string): Promise<ChatRow> {
  const chat = await getChat(c.var.db.$client, chatId);
  if (!chat || chat.ownerId !== c.var.caller.userId) throw new ChatNotFoundError(chatId);
  return chat;
}
