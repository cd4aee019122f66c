/**
 * The request a piece of work belongs to. The Worker's request-log middleware opens one per HTTP
 * request; the ChatObject reopens it for the commands and WebSockets that request forwards, so
 * every log line written on the request's behalf, in either runtime, carries its `request_id`
 * (work the request starts, such as the turn it admits, inherits it too).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The header a response names its request by; a caller may send its own (kept when well-formed). */
export const REQUEST_ID_HEADER = "x-request-id";

const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's id when it is safe to log and echo back, a fresh one otherwise. */
export function requestIdFrom(header: string | null | undefined): string {
  return header && CALLER_REQUEST_ID.test(header) ? header : crypto.randomUUID();
}

export function runInRequest<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
