/**
 * `npm run reliability:tenants`: the long run of the hostile-tenant suite (R7, docs/reliability.md).
 * Picks a seed (or takes TENANTS_SEED), prints it so a failure can be replayed, and runs the
 * suite's test file against its own wrangler dev with TENANTS_ROUNDS seeded rounds (50 by
 * default). The test logs a summary line (`hostile_tenant_rounds`) with its figures.
 */
import { runSeeded } from "./seeded-run";

runSeeded({
  file: "test/e2e/hostile-tenants.test.ts",
  event: "hostile_tenants_start",
  script: "reliability:tenants",
  seedVar: "TENANTS_SEED",
  countVar: "TENANTS_ROUNDS",
  defaultCount: 50,
});
