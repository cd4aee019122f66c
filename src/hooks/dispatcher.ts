/**
 * Sends lifecycle hook events to the deployment's consumer (spec "Lifecycle hooks"): one signed
 * JSON POST per event, answered with a response the caller applies. Fail closed: a consumer that
 * cannot be reached, times out, answers non-2xx, or answers something invalid for the event throws
 * HookFailureError, and no dispatch slot within the deadline is the same failure. Nothing about a
 * dispatch is stored; the event id is what lets the consumer deduplicate.
 *
 * Concurrency: every dispatch holds a slot of its Durable Object's limiter and of the isolate's
 * (the edge's stand-in for the spec's per-replica cap; a Worker isolate serves many objects).
 * The caller says whether the dispatch admits new work (`admission`) or belongs to admitted work.
 */
import type { Config } from "../config/env";
import { HookFailureError } from "./errors";
import { hookEventId } from "./event-id";
import { type HookChat, type HookEnvelope, type HookEventName, type HookResponse, parseHookResponse } from "./events";
import { CapacityTimeoutError, type DispatchClass, DispatchLimiter } from "./limiter";
import { EVENT_HEADER, EVENT_ID_HEADER, SIGNATURE_HEADER, signBody, TIMESTAMP_HEADER } from "./signature";
import { errorText } from "../log/log";
import { BodyTooLargeError, readLimitedText } from "../outbound/limited-body";

/**
 * The most of a consumer's answer read: its fields' caps (events.ts) total about 304,000
 * characters, at most 3 bytes each in UTF-8, so any answer they accept fits unless it escapes
 * most of its characters. Past it the read stops, and the answer is invalid.
 */
export const HOOK_RESPONSE_MAX_BYTES = 1024 * 1024;

export type HookSettings = Pick<
  Config,
  | "CHAT_HOOK_URL"
  | "CHAT_HOOK_SECRET"
  | "CHAT_HOOK_TIMEOUT_MS"
  | "CHAT_HOOK_CONCURRENCY"
  | "CHAT_HOOK_OBJECT_CONCURRENCY"
  | "CHAT_HOOK_ADMISSION_PERCENT"
>;

export interface DispatchRequest {
  event: HookEventName;
  chat: HookChat;
  data: Record<string, unknown>;
  /** What triggered the event (tool call id, history version, ...): with chat and event, the stable id. */
  trigger: readonly (string | number)[];
  kind: DispatchClass;
  signal?: AbortSignal | undefined;
}

export interface HookDispatcher {
  readonly enabled: boolean;
  /** The consumer's response ({} when hooks are off); throws HookFailureError. */
  dispatch(request: DispatchRequest): Promise<HookResponse>;
}

export const DISABLED_HOOKS: HookDispatcher = { enabled: false, dispatch: async () => ({}) };

/** One limiter per isolate, made on first use from the first config seen (config is per isolate too). */
let isolateLimiter: DispatchLimiter | undefined;

function isolateLimiterFor(settings: HookSettings): DispatchLimiter {
  isolateLimiter ??= new DispatchLimiter(settings.CHAT_HOOK_CONCURRENCY, settings.CHAT_HOOK_ADMISSION_PERCENT / 100);
  return isolateLimiter;
}

/** A dispatcher for one Durable Object (its own limiter) sharing the isolate's. */
export function createHookDispatcher(
  settings: HookSettings,
  options: { fetch?: typeof fetch; now?: () => Date; isolate?: DispatchLimiter } = {},
): HookDispatcher {
  if (settings.CHAT_HOOK_URL === "") return DISABLED_HOOKS;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? (() => new Date());
  const objectLimiter = new DispatchLimiter(settings.CHAT_HOOK_OBJECT_CONCURRENCY, settings.CHAT_HOOK_ADMISSION_PERCENT / 100);
  const isolate = options.isolate ?? isolateLimiterFor(settings);
  const timeoutMs = settings.CHAT_HOOK_TIMEOUT_MS;

  async function slot(limiter: DispatchLimiter, request: DispatchRequest): Promise<() => void> {
    try {
      return await limiter.acquire(request.kind, timeoutMs);
    } catch (err) {
      if (err instanceof CapacityTimeoutError) throw new HookFailureError("hook_unavailable", request.event, err.message);
      throw err;
    }
  }

  return {
    enabled: true,
    async dispatch(request) {
      const releaseObject = await slot(objectLimiter, request);
      try {
        const releaseIsolate = await slot(isolate, request);
        try {
          return await post(request);
        } finally {
          releaseIsolate();
        }
      } finally {
        releaseObject();
      }
    },
  };

  async function post(request: DispatchRequest): Promise<HookResponse> {
    const sentAt = now().toISOString();
    const envelope: HookEnvelope = {
      id: await hookEventId(request.chat.id, request.event, ...request.trigger),
      event: request.event,
      sent_at: sentAt,
      chat: request.chat,
      data: request.data,
    };
    const body = JSON.stringify(envelope);
    const headers = {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: await signBody(settings.CHAT_HOOK_SECRET, body),
      [TIMESTAMP_HEADER]: sentAt,
      [EVENT_HEADER]: request.event,
      [EVENT_ID_HEADER]: envelope.id,
    };
    const signals = [AbortSignal.timeout(timeoutMs), ...(request.signal ? [request.signal] : [])];
    let text: string;
    let status: number;
    try {
      const res = await doFetch(settings.CHAT_HOOK_URL, { method: "POST", headers, body, signal: AbortSignal.any(signals) });
      status = res.status;
      text = await readLimitedText(res, HOOK_RESPONSE_MAX_BYTES);
    } catch (err) {
      // The caller's own cancellation is not the consumer's fault: let it through as it is.
      if (request.signal?.aborted) throw err;
      if (err instanceof BodyTooLargeError) throw new HookFailureError("hook_invalid_response", request.event, err.message);
      throw new HookFailureError("hook_unavailable", request.event, errorText(err));
    }
    if (status < 200 || status > 299) throw new HookFailureError("hook_unavailable", request.event, `the consumer answered ${status}`);
    let json: unknown = {};
    if (text.trim() !== "") {
      try {
        json = JSON.parse(text);
      } catch {
        throw new HookFailureError("hook_invalid_response", request.event, "the body is not JSON");
      }
    }
    const parsed = parseHookResponse(request.event, json);
    if (!parsed.ok) throw new HookFailureError("hook_invalid_response", request.event, parsed.why);
    return parsed.value;
  }
}
