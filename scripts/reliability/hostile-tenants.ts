/**
 * `npm run reliability:tenants`: the long run of the hostile-tenant suite (R7, docs/reliability.md).
 * Picks a seed (or takes TENANTS_SEED), prints it so a failure can be replayed, and runs the
 * suite's test file against its own wrangler dev with TENANTS_ROUNDS seeded rounds (50 by
 * default). The test logs a summary line (`hostile_tenant_rounds`) with its figures.
 */
import { spawnSync } from "node:child_process";

const rounds = process.env.TENANTS_ROUNDS ?? "50";
const seed = process.env.TENANTS_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
if (!/^\d+$/.test(rounds) || !/^\d+$/.test(seed)) {
  console.error("TENANTS_ROUNDS and TENANTS_SEED must be whole numbers");
  process.exit(2);
}
console.log(
  JSON.stringify({
    event: "hostile_tenants_start",
    seed: Number(seed),
    rounds: Number(rounds),
    replay: `TENANTS_SEED=${seed} TENANTS_ROUNDS=${rounds} npm run reliability:tenants`,
  }),
);
const run = spawnSync("npx", ["vitest", "run", "--project", "e2e", "test/e2e/hostile-tenants.test.ts"], {
  stdio: "inherit",
  env: { ...process.env, TENANTS_ROUNDS: rounds, TENANTS_SEED: seed },
});
process.exit(run.status ?? 1);
