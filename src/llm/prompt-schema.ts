/**
 * Keeps the AI SDK's prompt check from walking the whole message schema on every call.
 *
 * streamText and generateText validate the messages against `z.array(modelMessageSchema)`, a new
 * array schema each call. zod 4.6 walks a schema for reference cycles on its first parse and caches
 * each node's answer once it is certain; a lazy schema no parse has resolved yet is uncertain, and
 * so is everything above it. Under modelMessageSchema there is one: the JSON value of a message's
 * providerOptions, which this service's prompts never carry. Nothing in the message schema was
 * ever cached, and every model call walked all of it again (158 nodes; in the turn bench's heap
 * profile, about 300 KiB of garbage a turn, an eighth of all it allocated). One parse of a message
 * that reaches the lazy resolves it, and the walk stops at the cached answer from then on.
 */
import { modelMessageSchema } from "ai";

/** A valid message whose providerOptions hold a JSON value of every container kind. */
export const RESOLVING_MESSAGE = { role: "user", content: "", providerOptions: { chatd: { value: [null, { nested: true }] } } } as const;

let resolved = false;

/** Once per isolate, before the first model call. */
export function resolvePromptSchema(): void {
  if (resolved) return;
  resolved = true;
  modelMessageSchema.safeParse(RESOLVING_MESSAGE);
}
