/**
 * `npm run dev`'s CHAT_SECRETS_KEYS (docs/hardening.md): the environment's when set, else a key
 * generated into the data folder on the first run and read from there after, so the providers and
 * MCP servers sealed in the local database stay readable across runs.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { KeyRing } from "../../src/secrets/key-ring";
import { log } from "./log";
import { DEV_SECRETS_KEYS_FILE } from "./paths";

export function devSecretsKeys(file = DEV_SECRETS_KEYS_FILE): { text: string; keys: KeyRing } {
  const fromEnv = process.env.CHAT_SECRETS_KEYS;
  if (fromEnv) return { text: fromEnv, keys: KeyRing.parse(fromEnv) };
  if (!existsSync(file)) {
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    writeFileSync(file, `dev:${key}\n`, { mode: 0o600, flag: "wx" });
    log("info", "dev_secrets_key_created", { file });
  }
  const text = readFileSync(file, "utf8").trim();
  return { text, keys: KeyRing.parse(text) };
}
