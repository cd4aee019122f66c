/**
 * Compile-time checks of the SDK's derived types (run by `npm run typecheck`, not by vitest): the
 * request types are the zod schemas' inputs, so a wrong call does not compile.
 */
import type { z } from "zod";
import type { ChatdClient, OperationInput, Operations } from "../../client/src/index";
import type { SendMessageBody } from "../../src/routes/chat-schemas";

declare const client: ChatdClient;
export async function typeChecks(): Promise<void> {
  await client.me();
  // @ts-expect-error the chat's id is required
  await client.getChat();
  // @ts-expect-error content is a list of parts
  await client.sendMessage({ chat: "id", body: { content: "hi" } });
  // @ts-expect-error busy_behavior is "queue" or "interrupt"
  await client.sendMessage({ chat: "id", body: { content: [{ type: "text", text: "hi" }], busy_behavior: "later" } });
  const chats = await client.listChats({ query: { archived: "false", limit: 10 } });
  chats[0]?.status satisfies "waiting" | "running" | "interrupting" | "requires_action" | "error" | undefined;
  const body: OperationInput<Operations["sendMessage"]>["body"] = { content: [] };
  body satisfies z.input<typeof SendMessageBody>;
}
