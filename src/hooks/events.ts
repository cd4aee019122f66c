/**
 * The seven lifecycle hook events, their envelope and the consumer's response (docs/hooks.md has
 * the payload of each). Only user_prompt_submit and pre_tool_use accept a decision or an input
 * override; such a field on any other event makes the whole response invalid (spec "Lifecycle
 * hooks").
 */
import { z } from "zod";

export const HOOK_EVENTS = [
  "session_start",
  "user_prompt_submit",
  "pre_tool_use",
  "post_tool_use",
  "pre_compact",
  "post_compact",
  "stop",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** The chat an event is about, as the consumer sees it. */
export interface HookChat {
  id: string;
  organization_id: string;
  owner_id: string;
  parent_chat_id: string | null;
}

/** What is POSTed: `data` is the event's own payload. */
export interface HookEnvelope {
  id: string;
  event: HookEventName;
  sent_at: string;
  chat: HookChat;
  data: Record<string, unknown>;
}

const responseSchema = z.strictObject({
  decision: z.enum(["allow", "deny"]).optional(),
  reason: z.string().max(4000).optional(),
  model_context: z.string().max(100_000).optional(),
  user_context: z.string().max(100_000).optional(),
  updated_prompt: z.string().min(1).max(100_000).optional(),
  updated_input: z.record(z.string(), z.unknown()).optional(),
});

export type HookResponse = z.infer<typeof responseSchema>;

/** Which override field an event accepts (none: the event takes no decision either). */
const OVERRIDE: Partial<Record<HookEventName, "updated_prompt" | "updated_input">> = {
  user_prompt_submit: "updated_prompt",
  pre_tool_use: "updated_input",
};

/** The response, or a sentence saying why it is invalid for `event`. */
export function parseHookResponse(event: HookEventName, body: unknown): { ok: true; value: HookResponse } | { ok: false; why: string } {
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, why: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}` };
  }
  const value = parsed.data;
  const allowed = OVERRIDE[event];
  if (allowed === undefined && value.decision !== undefined) return { ok: false, why: `${event} does not accept a decision` };
  for (const field of ["updated_prompt", "updated_input"] as const) {
    if (value[field] !== undefined && field !== allowed) return { ok: false, why: `${event} does not accept ${field}` };
  }
  if (value.reason !== undefined && value.decision !== "deny") return { ok: false, why: "reason is only for decision: deny" };
  return { ok: true, value };
}

export function isDenied(response: HookResponse): boolean {
  return response.decision === "deny";
}
