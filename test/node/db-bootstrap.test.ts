/**
 * `npm run db:bootstrap`: the operator's way to claim a fresh deployment (docs/accounts.md). Run
 * as a process against a database of its own: it prints the owner's session token once, which
 * authenticates; a second run and bad arguments fail with a clear message and write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findApiKeyForAuth } from "../../src/accounts/api-keys";
import { callerOf } from "../../src/accounts/authentication";
import { parseToken } from "../../src/accounts/token";
import { createOwnDatabase, type OwnDatabase } from "../db/support/own-database";
import { runScript, type ScriptRun } from "./support/run-script";

let own: OwnDatabase;
beforeAll(async () => {
  own = await createOwnDatabase("bootstrap");
});
afterAll(async () => own?.drop());

function bootstrap(args: string[]): Promise<ScriptRun> {
  return runScript("scripts/db-bootstrap.ts", args, { ...process.env, DATABASE_URL: own.url });
}

const userCount = async () => Number((await own.pool.query("SELECT count(*) AS n FROM users")).rows[0]?.n);

describe("npm run db:bootstrap", () => {
  it("refuses bad arguments with the usage, and writes nothing", async () => {
    const run = await bootstrap(["--email", "not-an-email", "--username", "owner"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--email");
    expect(run.stderr).toContain("usage: npm run db:bootstrap");
    expect(await userCount()).toBe(0);
  });

  it("creates the site owner and prints a session token that authenticates, once", async () => {
    const run = await bootstrap(["--email", "Owner@Example.com", "--username", "owner", "--password", "a long password"]);
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as { user_id: string; session_token: string };
    const parsed = parseToken(printed.session_token);
    const found = await findApiKeyForAuth(own.db, parsed?.id ?? "");
    const caller = await callerOf(found, parsed?.secret ?? "", new Date());
    expect(caller).toMatchObject({ userId: printed.user_id, siteRoles: ["owner"] });
    const { rows } = await own.pool.query("SELECT email FROM users");
    expect(rows).toEqual([{ email: "owner@example.com" }]);

    const again = await bootstrap(["--email", "second@example.com", "--username", "second"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already has users");
    expect(await userCount()).toBe(1);
  });
});
