/** The wire shape of the caller's chat preferences (`/users/me/chat-preferences`), for the route and the SDK. */
import { z } from "@hono/zod-openapi";

const threshold = z
  .number()
  .int()
  .min(0)
  .max(100)
  .nullable()
  .openapi({ description: "Percent of the chat model's context window at which chats compact; null: the model's own", example: 70 });

export const ChatPreferencesSchema = z.object({ compaction_threshold_percent: threshold }).openapi("ChatPreferences");
export const UpdateChatPreferencesBody = z
  .strictObject({ compaction_threshold_percent: threshold })
  .openapi("UpdateChatPreferencesRequest");
