/**
 * `npm run secrets:rotate` (docs/hardening.md, "Secrets at rest"), run as a process against a
 * database of its own: provider API keys and MCP credentials sealed under an old key, or stored in
 * the clear before sealing, end up under the new key and open with it alone; a second run changes
 * nothing; a value it cannot open is reported and left; a write landing mid-rotation is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SECRETS_KEYS } from "../../scripts/lib/test-secrets-keys";
import { rotateSecrets } from "../../scripts/lib/secrets-rotation";
import { ensureDefaultOrganization } from "../../src/accounts/organizations";
import { createMcpServer, getMcpServer } from "../../src/mcp/servers";
import { openedMcpServer } from "../../src/mcp/server-secrets";
import { openedProvider } from "../../src/model-configs/provider-secrets";
import { createProvider, getProvider, updateProvider } from "../../src/model-configs/providers";
import { KeyRing } from "../../src/secrets/key-ring";
import { createOwnDatabase, type OwnDatabase } from "../db/support/own-database";
import { testKeys } from "../support/test-keys";
import { runScript, type ScriptRun } from "./support/run-script";

const NEW = `new:${Buffer.alloc(32, 0x42).toString("base64")}`;
/** After the operator put a new key first: new writes use it, the old one still opens. */
const rotating = KeyRing.parse(`${NEW},${TEST_SECRETS_KEYS}`);
/** Once the rotation is done and the old key dropped. */
const newOnly = KeyRing.parse(NEW);

let own: OwnDatabase;
let organizationId: string;
beforeAll(async () => {
  own = await createOwnDatabase("secrets_rotate");
  organizationId = (await ensureDefaultOrganization(own.db)).id;
});
afterAll(async () => own?.drop());

function rotate(keys: string | undefined): Promise<ScriptRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: own.url };
  if (keys === undefined) delete env.CHAT_SECRETS_KEYS;
  else env.CHAT_SECRETS_KEYS = keys;
  return runScript("scripts/secrets-rotate.ts", [], env);
}

const counts = (stdout: string) =>
  Object.fromEntries(
    (JSON.parse(stdout) as { columns: { column: string; resealed: number; skipped: number; failed: number }[] }).columns.map((c) => [
      c.column,
      [c.resealed, c.skipped, c.failed],
    ]),
  );

const sql = (text: string, values: unknown[]) => own.pool.query(text, values);

describe("npm run secrets:rotate", () => {
  it("refuses to run without the keys", async () => {
    const run = await rotate(undefined);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("CHAT_SECRETS_KEYS is required");
  });

  it("seals old-key and plaintext values under the new key, which alone then opens them; a second run changes nothing", async () => {
    const sealedOld = await createProvider(own.db, { type: "openai", name: "old-key", apiKey: "sk-old" }, testKeys);
    const legacy = await createProvider(own.db, { type: "openai", name: "legacy", apiKey: "x" }, testKeys);
    await sql("UPDATE chat_providers SET api_key = 'sk-legacy', api_key_sealed_with = NULL WHERE id = $1", [legacy.id]);
    const keyless = await createProvider(
      own.db,
      { type: "openai-compatible", name: "keyless", baseUrl: "http://127.0.0.1:9/v1" },
      testKeys,
    );
    const mcpOld = await createMcpServer(
      own.db,
      organizationId,
      { name: "old-key", url: "https://mcp.example/mcp", bearerToken: "tok-old", headers: { "X-A": "h-old" } },
      testKeys,
    );
    const mcpLegacy = await createMcpServer(own.db, organizationId, { name: "legacy", url: "https://mcp.example/mcp" }, testKeys);
    await sql(
      `UPDATE mcp_servers SET bearer_token = 'tok-legacy', bearer_token_sealed_with = NULL,
         headers = '{"X-A": "h-legacy", "X-B": "h-legacy-2"}', headers_sealed_with = NULL WHERE id = $1`,
      [mcpLegacy.id],
    );
    const updatedAt = (await sql("SELECT updated_at FROM chat_providers WHERE id = $1", [sealedOld.id])).rows[0]?.updated_at;

    const run = await rotate(`${NEW},${TEST_SECRETS_KEYS}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('"event":"secrets_rotate_progress"');
    expect(run.stderr).not.toContain(NEW.slice(4));
    expect(counts(run.stdout)).toEqual({
      "chat_providers.api_key": [2, 0, 0],
      "mcp_servers.bearer_token": [2, 0, 0],
      "mcp_servers.headers": [2, 0, 0],
    });

    const providerRows = (await sql("SELECT id, api_key, api_key_sealed_with FROM chat_providers ORDER BY name", [])).rows;
    expect(providerRows.map((r) => r.api_key_sealed_with)).toEqual([null, "new", "new"]); // keyless, legacy, old-key
    expect(JSON.stringify(providerRows)).not.toMatch(/sk-old|sk-legacy/);
    expect((await openedProvider(newOnly, (await getProvider(own.db, sealedOld.id))!)).apiKey).toBe("sk-old");
    expect((await openedProvider(newOnly, (await getProvider(own.db, legacy.id))!)).apiKey).toBe("sk-legacy");
    expect((await getProvider(own.db, keyless.id))?.apiKey).toBeNull();
    const mcpRows = (await sql("SELECT bearer_token_sealed_with, headers_sealed_with, bearer_token, headers FROM mcp_servers", [])).rows;
    expect(mcpRows.map((r) => [r.bearer_token_sealed_with, r.headers_sealed_with])).toEqual([
      ["new", "new"],
      ["new", "new"],
    ]);
    expect(JSON.stringify(mcpRows)).not.toMatch(/tok-old|tok-legacy|h-old|h-legacy/);
    expect(await openedMcpServer(newOnly, (await getMcpServer(own.db, organizationId, mcpOld.id))!)).toMatchObject({
      bearerToken: "tok-old",
      headers: { "X-A": "h-old" },
    });
    expect(await openedMcpServer(newOnly, (await getMcpServer(own.db, organizationId, mcpLegacy.id))!)).toMatchObject({
      bearerToken: "tok-legacy",
      headers: { "X-A": "h-legacy", "X-B": "h-legacy-2" },
    });
    // The credential did not change: nothing that keys on updated_at (an MCP connection) sees an edit.
    expect((await sql("SELECT updated_at FROM chat_providers WHERE id = $1", [sealedOld.id])).rows[0]?.updated_at).toEqual(updatedAt);

    const again = await rotate(NEW);
    expect(again.code, again.stderr).toBe(0);
    expect(counts(again.stdout)).toEqual({
      "chat_providers.api_key": [0, 0, 0],
      "mcp_servers.bearer_token": [0, 0, 0],
      "mcp_servers.headers": [0, 0, 0],
    });
  });

  it("reports a value no key of the ring opens, leaves it, seals the rest, and exits 1", async () => {
    const lost = await createProvider(own.db, { type: "openai", name: "lost", apiKey: "sk-lost" }, testKeys);
    const fine = await createProvider(own.db, { type: "openai", name: "fine", apiKey: "sk-fine" }, testKeys);
    await sql("UPDATE chat_providers SET api_key_sealed_with = 'gone' WHERE id = $1", [lost.id]);
    const run = await rotate(`${NEW},${TEST_SECRETS_KEYS}`);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`chat_providers.api_key of row ${lost.id} is sealed with key \\"gone\\"`);
    expect(counts(run.stdout)["chat_providers.api_key"]).toEqual([1, 0, 1]);
    expect((await openedProvider(newOnly, (await getProvider(own.db, fine.id))!)).apiKey).toBe("sk-fine");
    expect((await getProvider(own.db, lost.id))?.apiKeySealedWith).toBe("gone");
    await sql("DELETE FROM chat_providers WHERE id = $1", [lost.id]);
  });

  it("keeps a write that lands between its read of a row and its write", async () => {
    const raced = await createProvider(own.db, { type: "openai", name: "raced", apiKey: "sk-before" }, testKeys);
    let raceDone = false;
    const racing = {
      async query(text: string, values?: unknown[]) {
        if (!raceDone && text.trimStart().startsWith("UPDATE") && values?.[0] === raced.id) {
          raceDone = true;
          // The API's write, under the new key, while the rotation holds what it read.
          await updateProvider(own.db, raced.id, { apiKey: "sk-after" }, new Date(), rotating);
        }
        return own.pool.query(text, values);
      },
    };
    const [providers] = await rotateSecrets(racing, rotating);
    expect(raceDone).toBe(true);
    expect(providers).toMatchObject({ column: "chat_providers.api_key", skipped: 1, failed: 0 });
    expect((await openedProvider(newOnly, (await getProvider(own.db, raced.id))!)).apiKey).toBe("sk-after");
  });
});
