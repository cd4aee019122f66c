/**
 * Postgres errors by SQLSTATE and constraint name (both the Neon driver and node-postgres expose
 * `code` and `constraint`). Only a lost or refused connection, which carries no SQLSTATE, is
 * recognised by the driver's message.
 */

interface PgErrorFields {
  code?: unknown;
  constraint?: unknown;
}

function fields(err: unknown): PgErrorFields {
  if (typeof err !== "object" || err === null) return {};
  // drizzle wraps driver errors; the driver's error is the cause.
  const cause = (err as { cause?: unknown }).cause;
  if (typeof (err as PgErrorFields).code !== "string" && typeof cause === "object" && cause !== null) return cause as PgErrorFields;
  return err as PgErrorFields;
}

/** unique_violation (23505), optionally of one named constraint or index. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const f = fields(err);
  return f.code === "23505" && (constraint === undefined || f.constraint === constraint);
}

/** deadlock_detected (40P01): Postgres aborted this transaction to break a lock cycle. */
export function isDeadlock(err: unknown): boolean {
  return fields(err).code === "40P01";
}

/** foreign_key_violation (23503). */
export function isForeignKeyViolation(err: unknown): boolean {
  return fields(err).code === "23503";
}

/** The check `chatd_check` raised (SQLSTATE CD001, migration 0011) for, by name; otherwise undefined. */
export function failedCommitCheck(err: unknown): string | undefined {
  if (fields(err).code !== "CD001") return undefined;
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" ? message : undefined;
}

/** The violated constraint's name, when the driver reports one. */
export function constraintOf(err: unknown): string | undefined {
  const c = fields(err).constraint;
  return typeof c === "string" ? c : undefined;
}

/**
 * SQLSTATEs of a database that is going away or not taking connections: class 08 (connection
 * exception), admin/crash shutdown and cannot-connect-now (57P01-57P03), too many connections.
 */
const UNAVAILABLE_CODE = /^(08...|57P0[123]|53300)$/;
/** What the driver says when its socket to the database is refused, cut or never answers. */
const UNAVAILABLE_MESSAGE =
  /connection terminated|terminating connection|connection (refused|reset|closed|lost)|network connection lost|websocket|econnrefused|econnreset|timeout exceeded when trying to connect|the database system is (starting up|shutting down)|is not currently accepting connections|not queryable/i;

/**
 * The database cannot be reached right now (restarted, connections killed, proxy down): the
 * request may succeed if retried, so it is answered 503 rather than 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; typeof e === "object" && e !== null && depth < 4; depth++) {
    // The Neon driver rejects with the WebSocket's own ErrorEvent when the socket fails.
    if (e.constructor?.name === "ErrorEvent") return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && UNAVAILABLE_CODE.test(code)) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGE.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
