import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { runMigrations } from "../../scripts/lib/migrate";

describe("the migration runner", () => {
  it("is idempotent: a second and a concurrent run apply nothing new and fail nothing", async () => {
    const url = inject("databaseUrl");
    const count = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM drizzle.__drizzle_migrations");
        return Number(rows[0]?.n);
      } finally {
        await client.end();
      }
    };
    const before = await count();
    expect(before).toBeGreaterThan(0);
    await Promise.all([runMigrations(url), runMigrations(url)]);
    expect(await count()).toBe(before);
  });
});
