/**
 * When automatic compaction fires (spec "Compaction model selection", Triggers). Pure.
 *
 * Two independent triggers, each a token point = floor(context limit × threshold / 100):
 * - the chat trigger: the owner's personal threshold, else the chat model's compression_threshold
 *   (else DEFAULT_COMPRESSION_THRESHOLD_PERCENT), against the chat model's context limit. A
 *   threshold of 100 disables it; an unknown context limit leaves no chat trigger at all.
 * - the organization trigger: only while a compaction override resolves, at a fixed 80 % of the
 *   override model's context limit (its own compression_threshold is ignored). A point beyond the
 *   chat model's window never fires: the prompt cannot get there.
 * The lower enabled point binds; ties go to the chat trigger.
 */

/** The organization trigger's fixed share of the override model's window. */
export const COMPACTION_OVERRIDE_WINDOW_PERCENT = 80;
/** The chat trigger's threshold when neither the owner nor the model config sets one. */
export const DEFAULT_COMPRESSION_THRESHOLD_PERCENT = 70;

export type TriggerKind = "chat" | "organization";

export interface CompactionTrigger {
  kind: TriggerKind;
  thresholdPercent: number;
  contextLimitTokens: number;
  /** Compaction fires when the previous step's prompt reaches this many tokens. */
  tokenPoint: number;
  /** False for a disabled chat trigger (100 %) and for an organization point beyond the chat window. */
  enabled: boolean;
}

export interface TriggerInput {
  chatModel: { contextLimit: number | null; compressionThreshold: number | null };
  /** The owner's personal threshold (chat preferences); null: unset. */
  ownerThresholdPercent: number | null;
  /** The resolved override model; null when no override resolves. */
  override: { contextLimit: number | null } | null;
}

export interface CompactionTriggers {
  chat: CompactionTrigger | null;
  organization: CompactionTrigger | null;
  /** The enabled trigger with the lower token point (ties: chat); null when none is enabled. */
  binding: CompactionTrigger | null;
}

export function tokenPoint(contextLimitTokens: number, thresholdPercent: number): number {
  return Math.floor((contextLimitTokens * thresholdPercent) / 100);
}

export function compactionTriggers(input: TriggerInput): CompactionTriggers {
  const chatLimit = input.chatModel.contextLimit;
  let chat: CompactionTrigger | null = null;
  if (chatLimit !== null && chatLimit > 0) {
    const threshold = input.ownerThresholdPercent ?? input.chatModel.compressionThreshold ?? DEFAULT_COMPRESSION_THRESHOLD_PERCENT;
    chat = {
      kind: "chat",
      thresholdPercent: threshold,
      contextLimitTokens: chatLimit,
      tokenPoint: tokenPoint(chatLimit, threshold),
      enabled: threshold < 100,
    };
  }

  let organization: CompactionTrigger | null = null;
  const overrideLimit = input.override?.contextLimit ?? null;
  if (overrideLimit !== null && overrideLimit > 0) {
    const point = tokenPoint(overrideLimit, COMPACTION_OVERRIDE_WINDOW_PERCENT);
    organization = {
      kind: "organization",
      thresholdPercent: COMPACTION_OVERRIDE_WINDOW_PERCENT,
      contextLimitTokens: overrideLimit,
      tokenPoint: point,
      // An unknown chat window cannot be exceeded by the point, so the point may fire.
      enabled: chatLimit === null || point <= chatLimit,
    };
  }

  return { chat, organization, binding: lowerPoint(chat, organization) };
}

function lowerPoint(chat: CompactionTrigger | null, organization: CompactionTrigger | null): CompactionTrigger | null {
  const c = chat?.enabled ? chat : null;
  const o = organization?.enabled ? organization : null;
  if (c === null) return o;
  if (o === null) return c;
  return o.tokenPoint < c.tokenPoint ? o : c;
}

/** The automatic gate: the previous step's prompt size reached the binding point. */
export function reachesTrigger(promptTokens: number | null, trigger: CompactionTrigger | null): trigger is CompactionTrigger {
  return trigger?.enabled === true && promptTokens !== null && promptTokens >= trigger.tokenPoint;
}

/**
 * The trigger a summary records (threshold_percent, trigger_context_limit_tokens): the binding one,
 * or for a manual compaction with none enabled, the chat trigger as configured (e.g. 100 %), else
 * the organization's. Null when no window is known at all.
 */
export function recordedTrigger(triggers: CompactionTriggers): CompactionTrigger | null {
  return triggers.binding ?? triggers.chat ?? triggers.organization;
}
