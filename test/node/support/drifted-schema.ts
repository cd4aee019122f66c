/**
 * The schema with changes migrations/ does not have (test/node/migration-check.test.ts): a new
 * table, and a column added to sign_in_failures (this local export shadows the re-exported one).
 */
import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export * from "../../../src/db/schema/index";

export const driftProbes = pgTable("drift_probes", { id: text().primaryKey() });

export const signInFailures = pgTable(
  "sign_in_failures",
  {
    subject: text().primaryKey(),
    failures: integer().notNull(),
    firstFailedAt: timestamp({ withTimezone: true }).notNull(),
    lockedUntil: timestamp({ withTimezone: true }),
    driftNote: text(),
  },
  (t) => [index("sign_in_failures_first_failed_at_idx").on(t.firstFailedAt)],
);
