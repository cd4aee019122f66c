/**
 * Structured logs: one JSON object per line, which Workers Logs indexes field by field. A line
 * written on behalf of a request carries its `request_id`.
 */
import { currentRequestId } from "./request-context";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: Level = "info";

export function setLogLevel(level: Level): void {
  threshold = level;
}

function write(level: Level, event: string, fields: Record<string, unknown>): void {
  if (ORDER[level] < ORDER[threshold]) return;
  const requestId = currentRequestId();
  const line = JSON.stringify(requestId === undefined ? { level, event, ...fields } : { level, event, request_id: requestId, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export const logger = {
  debug: (event: string, fields: Record<string, unknown> = {}) => write("debug", event, fields),
  info: (event: string, fields: Record<string, unknown> = {}) => write("info", event, fields),
  warn: (event: string, fields: Record<string, unknown> = {}) => write("warn", event, fields),
  error: (event: string, fields: Record<string, unknown> = {}) => write("error", event, fields),
};

/**
 * An error's text for a log line. The Neon driver rejects with a bare `ErrorEvent` when its
 * WebSocket fails, which `String()` would print as "[object ErrorEvent]".
 */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    // drizzle's query error repeats the SQL and its parameters (user text among them): name the
    // driver's error it wraps instead.
    const { query, cause } = err as { query?: unknown; cause?: unknown };
    if (typeof query === "string" && cause !== undefined) return `query failed: ${errorText(cause)}`;
    return err.message;
  }
  if (typeof err === "object" && err !== null) {
    const { message, error } = err as { message?: unknown; error?: unknown };
    if (typeof message === "string" && message !== "") return message;
    if (error !== undefined && error !== err) return errorText(error);
    return `${err.constructor?.name ?? "object"} without a message`;
  }
  return String(err);
}
