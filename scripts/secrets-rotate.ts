/**
 * `npm run secrets:rotate`: seals every provider API key and MCP credential in DATABASE_URL (the
 * embedded local Postgres when unset) with the first key of CHAT_SECRETS_KEYS, the others kept to
 * open what they sealed; plaintext from before sealing is sealed too (docs/hardening.md, "Secrets
 * at rest"). Safe while the service runs, and again after: it only rewrites what is not under the
 * current key. Progress on stderr, a summary on stdout; exit code 1 when a value could not be opened.
 */
import pg from "pg";
import { SecretsError } from "../src/secrets/errors";
import { KeyRing } from "../src/secrets/key-ring";
import { devSecretsKeys } from "./lib/dev-secrets-keys";
import { log } from "./lib/log";
import { DEV_DATA_DIR, DEV_DATABASE } from "./lib/paths";
import { startLocalPostgres } from "./lib/postgres";
import { rotateSecrets } from "./lib/secrets-rotation";

let keys: KeyRing;
try {
  // Against a deployment's database the keys must be named; the local one uses the dev command's.
  keys = process.env.DATABASE_URL ? KeyRing.parse(process.env.CHAT_SECRETS_KEYS ?? "") : devSecretsKeys().keys;
} catch (err) {
  if (!(err instanceof SecretsError)) throw err;
  log("error", "secrets_rotate_usage", { error: err.message });
  process.exit(2);
}

const db = await startLocalPostgres({ dataDir: DEV_DATA_DIR, database: DEV_DATABASE, databaseUrl: process.env.DATABASE_URL });
const pool = new pg.Pool({ connectionString: db.url, max: 1 });
log("info", "secrets_rotate_start", { current_key: keys.currentId, keys: keys.ids });
try {
  const results = await rotateSecrets(pool, keys, {
    onBatch: (p) =>
      log("info", "secrets_rotate_progress", { column: p.column, resealed: p.resealed, skipped: p.skipped, failed: p.failed }),
  });
  for (const r of results) {
    for (const error of r.errors) log("error", "secrets_rotate_unreadable", { column: r.column, error });
    log("info", "secrets_rotate_column_done", { column: r.column, resealed: r.resealed, skipped: r.skipped, failed: r.failed });
  }
  process.stdout.write(
    `${JSON.stringify({ current_key: keys.currentId, columns: results.map(({ errors: _, ...counts }) => counts) }, null, 2)}\n`,
  );
  if (results.some((r) => r.failed > 0)) process.exitCode = 1;
} catch (err) {
  log("error", "secrets_rotate_failed", { error: err instanceof Error ? err.message : String(err) });
  process.exitCode = 1;
} finally {
  await pool.end();
  await db.stop();
}
