/**
 * CHAT_SECRETS_KEYS of the test harnesses and benches (docs/hardening.md): fixed, so Node-side code
 * that writes providers and MCP servers seals them for the workerd that reads them. Public, hence
 * never a deployment's key; `npm run dev` generates one of its own (dev-secrets-keys.ts). Nothing
 * imported here: vitest.config.ts reads it.
 */
export const TEST_SECRETS_KEYS = "test:XFy46JTDmJHVBcGbgBSKwFVrnb7Se4D6UFuLUZsvIV8=";
