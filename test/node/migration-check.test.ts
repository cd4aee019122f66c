/**
 * `npm run db:check` (scripts/lib/migration-check.ts): `npm run lint` runs it on the real schema;
 * here, what it reports for a schema ahead of migrations/ and for a migration without its snapshot.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkMigrations } from "../../scripts/lib/migration-check";
import { MIGRATIONS_DIR } from "../../scripts/lib/migrate";

describe("the migration check", () => {
  it("names the tables and columns drizzle-kit would create, and leaves migrations/ alone", async () => {
    const before = readdirSync(MIGRATIONS_DIR, { recursive: true });
    const check = await checkMigrations({ schema: "test/node/support/drifted-schema.ts" });
    expect(check).toEqual({
      ok: false,
      problem: "pending_sql",
      statements: ['CREATE TABLE "drift_probes"', 'ALTER TABLE "sign_in_failures" ADD COLUMN "drift_note" text'],
    });
    expect(readdirSync(MIGRATIONS_DIR, { recursive: true })).toEqual(before);
  });

  it("fails on a journal entry without its snapshot", async () => {
    const copy = mkdtempSync(join(tmpdir(), "chatd-migrations-"));
    try {
      cpSync(MIGRATIONS_DIR, copy, { recursive: true });
      rmSync(join(copy, "meta/0011_snapshot.json"));
      expect(await checkMigrations({ migrationsDir: copy })).toEqual({
        ok: false,
        problem: "missing_snapshots",
        tags: ["0011_commit_checks"],
      });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
