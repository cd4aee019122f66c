/**
 * The wire shapes of the usage and cost reads (docs/usage-cost.md, src/wire/cost-wire.ts): a
 * chat's, a user's and an organization's, and the time range and limits they take.
 */
import { z } from "@hono/zod-openapi";
import { MessageId } from "./chat-schemas";

const timestamp = z.string().openapi({ format: "date-time" });

/** The longest range one read may cover, and the default when none is given. */
export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;
const DAY_MS = 86_400_000;

const totals = {
  total_cost_usd: z.string().openapi({ description: "Exact US dollars over the priced steps", example: "1.234567" }),
  total_cost_micros: z.number().int().openapi({ description: "total_cost_usd in whole micro-dollars, rounded half up once" }),
  priced_message_count: z.number().int(),
  unpriced_message_count: z.number().int().openapi({ description: "Steps whose model config had no prices when they were committed" }),
  total_input_tokens: z.number().int(),
  total_output_tokens: z.number().int(),
  total_cached_input_tokens: z.number().int(),
  total_reasoning_tokens: z.number().int(),
};

const ModelUsageSchema = z
  .object({ model_config_id: z.uuid().nullable(), display_name: z.string().nullable(), model: z.string().nullable(), ...totals })
  .openapi("ChatCostModelBreakdown");

const ChatUsageSchema = z.object({ chat_id: z.uuid(), title: z.string(), ...totals }).openapi("ChatCostChatBreakdown");

const TurnUsageSchema = z
  .object({
    user_message_id: MessageId.nullable().openapi({ description: "The user message the turn answered" }),
    started_at: timestamp,
    ...totals,
  })
  .openapi("ChatCostTurn");

const UserUsageSchema = z.object({ user_id: z.uuid(), username: z.string(), ...totals }).openapi("ChatCostUserBreakdown");

export const ChatCostSchema = z
  .object({
    chat_id: z.uuid(),
    ...totals,
    request_count: z.number().int().openapi({ description: "Coder's name: the model requests counted (priced and unpriced steps)" }),
    unpriced_request_count: z.number().int().openapi({ description: "Coder's name: unpriced_message_count" }),
    by_chat: z.array(ChatUsageSchema).openapi({ description: "The chat first, then its subagents, costliest first (at most 100)" }),
    by_model: z.array(ModelUsageSchema),
    turns: z.array(TurnUsageSchema).openapi({ description: "The chat's own turns, newest first" }),
  })
  .openapi("ChatCost");

const range = { start_date: timestamp, end_date: timestamp };

export const UserCostSummarySchema = z
  .object({
    user_id: z.uuid(),
    organization_id: z.uuid().nullable(),
    ...range,
    ...totals,
    by_model: z.array(ModelUsageSchema),
    by_chat: z.array(ChatUsageSchema).openapi({ description: "Root chats with their subagents, costliest first, at most `limit`" }),
    chat_count: z.number().int(),
  })
  .openapi("ChatCostSummary");

export const OrganizationCostSummarySchema = z
  .object({
    organization_id: z.uuid(),
    ...range,
    ...totals,
    by_model: z.array(ModelUsageSchema),
    by_user: z.array(UserUsageSchema).openapi({ description: "Chat owners, costliest first, at most `limit`" }),
    user_count: z.number().int(),
  })
  .openapi("OrganizationChatCostSummary");

export const ChatCostQuery = z.object({
  turn_limit: z.coerce.number().int().min(1).max(500).default(50).openapi({ description: "How many of the newest turns to list (1–500)" }),
});

const instant = z.iso.datetime({ offset: true, error: "an RFC 3339 date-time, e.g. 2026-01-31T00:00:00Z" });

const rangeQuery = {
  start_date: instant.optional().openapi({ description: `Inclusive; default: ${DEFAULT_RANGE_DAYS} days before end_date` }),
  end_date: instant.optional().openapi({ description: "Exclusive; default: now" }),
  limit: z.coerce.number().int().min(1).max(500).default(100).openapi({ description: "Entries per breakdown (1–500)" }),
};

/** start_date before end_date, at most MAX_RANGE_DAYS apart (checked on the parsed dates, defaults included). */
function checkRange(q: { start_date?: string | undefined; end_date?: string | undefined }, ctx: z.RefinementCtx): void {
  const { start, end } = costRange(q, new Date());
  if (start.getTime() >= end.getTime())
    ctx.addIssue({ code: "custom", path: ["start_date"], message: "start_date must be before end_date" });
  else if (end.getTime() - start.getTime() > MAX_RANGE_DAYS * DAY_MS)
    ctx.addIssue({ code: "custom", path: ["end_date"], message: `the range may cover at most ${MAX_RANGE_DAYS} days` });
}

export const UserCostQuery = z
  .object({ ...rangeQuery, organization_id: z.uuid().optional().openapi({ description: "Only chats of this organization" }) })
  .superRefine(checkRange);

export const OrganizationCostQuery = z.object(rangeQuery).superRefine(checkRange);

/** The range a validated query names: end defaults to now, start to DEFAULT_RANGE_DAYS before end. */
export function costRange(q: { start_date?: string | undefined; end_date?: string | undefined }, now: Date): { start: Date; end: Date } {
  const end = q.end_date === undefined ? now : new Date(q.end_date);
  const start = q.start_date === undefined ? new Date(end.getTime() - DEFAULT_RANGE_DAYS * DAY_MS) : new Date(q.start_date);
  return { start, end };
}

export const CostUserParams = z.object({
  user: z.string().min(1).max(64).openapi({ description: '"me", a user ID or a username', example: "me" }),
});
