import { fileURLToPath } from "node:url";

export const ROOT_DIR = fileURLToPath(new URL("../..", import.meta.url));
/** Local state; gitignored. `CHATD_DATA_DIR` moves it (the dev-command test uses a temp folder). */
export const DATA_DIR = process.env.CHATD_DATA_DIR || `${ROOT_DIR}.data`;
export const DEV_DATA_DIR = `${DATA_DIR}/postgres`;
export const DEV_DATABASE = "chatd";
/**
 * Each test run gets its own Postgres cluster in a fresh folder under here (initdb takes ~1.5 s),
 * so two runs at once, or a run beside `npm run dev`, never touch each other's server.
 */
export const TEST_RUNS_DIR = `${DATA_DIR}/test-runs`;
export const TEST_DATABASE = "chatd_test";
export const DEV_CREDENTIALS_FILE = `${DATA_DIR}/dev-credentials.json`;
/** The dev command's CHAT_SECRETS_KEYS, generated on its first run (scripts/lib/dev-secrets-keys.ts). */
export const DEV_SECRETS_KEYS_FILE = `${DATA_DIR}/dev-secrets-keys`;
/** Held by a running `npm run dev` (scripts/lib/dev-lock.ts): one dev stack per data folder. */
export const DEV_LOCK_FILE = `${DATA_DIR}/dev.lock`;
