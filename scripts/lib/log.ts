/**
 * Structured, one-line JSON logs for the Node-side scripts (dev stack, test harness, benches).
 * Progress goes to stderr so stdout stays free for machine-readable output.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export function log(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ ts: new Date().toISOString(), level, event, ...fields });
  process.stderr.write(line + "\n");
}
