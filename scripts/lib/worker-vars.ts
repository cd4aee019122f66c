import { unstable_readConfig } from "wrangler";
import { parseConfig } from "../../src/config/env";
import { ROOT_DIR } from "./paths";
import type { Stack } from "./stack";
import { TEST_SECRETS_KEYS } from "./test-secrets-keys";

/** The keys of wrangler.toml's [vars]: an operator may override any of them from the environment. */
function declaredVars(): Record<string, string> {
  const config = unstable_readConfig({ config: `${ROOT_DIR}wrangler.toml` }, { hideWarnings: true });
  return Object.fromEntries(Object.entries(config.vars ?? {}).map(([key, value]) => [key, String(value)]));
}

/**
 * The Worker vars that point a local workerd at the local stack: wrangler.toml's defaults,
 * overridden by same-named environment variables, plus the stack's addresses and the test
 * harness's fixed CHAT_SECRETS_KEYS (the dev command passes its own in `extra`). Validated with the
 * Worker's own schema so a bad value stops the command before anything starts.
 */
export function localWorkerVars(
  stack: Pick<Stack, "databaseUrl" | "wsProxy" | "pipelineConnect">,
  extra: Record<string, string> = {},
): Record<string, string> {
  const declared = declaredVars();
  const overrides = Object.fromEntries(
    Object.keys(declared).flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key] as string]])),
  );
  const vars = {
    ...overrides,
    DATABASE_URL: stack.databaseUrl,
    NEON_WS_PROXY: stack.wsProxy,
    NEON_PIPELINE_CONNECT: stack.pipelineConnect,
    CHAT_SECRETS_KEYS: TEST_SECRETS_KEYS,
    ...extra,
  };
  parseConfig({ ...declared, ...vars });
  return vars;
}
