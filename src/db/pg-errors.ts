/**
 * Postgres errors by SQLSTATE and constraint name (both the Neon driver and node-postgres expose
 * `code` and `constraint`), never by message text.
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

/** foreign_key_violation (23503). */
export function isForeignKeyViolation(err: unknown): boolean {
  return fields(err).code === "23503";
}

/** The violated constraint's name, when the driver reports one. */
export function constraintOf(err: unknown): string | undefined {
  const c = fields(err).constraint;
  return typeof c === "string" ? c : undefined;
}
