/**
 * `npm run deploy` (docs/deploy.md): what stops a deploy, each with a message that says what to do,
 * and what lets it through. The checks against wrangler.toml's real environments, the migration
 * status read from databases of the test's own (one fresh, one migrated), and the script itself
 * run as a process with --dry-run, which needs no account: a missing secret, a missing hint and
 * unapplied migrations each stop it. (A complete configuration reaching `wrangler deploy
 * --dry-run` is .ci/run's own step, for both environments.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDeploy, type DeployInputs } from "../../scripts/lib/deploy-checks";
import { type DeployTarget, readDeployTarget } from "../../scripts/lib/deploy-target";
import { journal, migrationStatus } from "../../scripts/lib/migration-status";
import { neonHost } from "../../scripts/lib/neon-host";
import { readSecretsFile, secretNamesFromFile } from "../../scripts/lib/secret-sources";
import { WORKER_SECRETS } from "../../scripts/lib/worker-secrets";
import { configSchema } from "../../src/config/env";
import { createOwnDatabase, type OwnDatabase } from "../db/support/own-database";
import { runScript, type ScriptRun } from "./support/run-script";

const NEON_DIRECT = "postgresql://owner:pw@ep-cool-darkness-a1b2c3d4.us-east-2.aws.neon.tech/chatd?sslmode=require";
const NEON_POOLED = "postgresql://owner:pw@ep-cool-darkness-a1b2c3d4-pooler.us-east-2.aws.neon.tech/chatd?sslmode=require";
const REQUIRED = new Set(["DATABASE_URL", "CHAT_SECRETS_KEYS"]);

/** Ids as `wrangler hyperdrive create` prints them, in place of wrangler.toml's placeholders. */
const UNCACHED_ID = "0123456789abcdef0123456789abcdef";
const CACHED_ID = "fedcba9876543210fedcba9876543210";

/** An environment of wrangler.toml once its operator created its two Hyperdrive configs. */
function withHyperdriveIds(target: DeployTarget, uncached = UNCACHED_ID, cached = CACHED_ID): DeployTarget {
  const ids: Record<string, string> = { HYPERDRIVE_UNCACHED: uncached, HYPERDRIVE_CACHED: cached };
  return {
    ...target,
    worker: { ...target.worker, hyperdrive: target.worker.hyperdrive.map((h) => ({ ...h, id: ids[h.binding] ?? h.id })) },
  };
}

/** wrangler.toml's staging environment with everything a dry run needs, and the changes a case makes. */
function inputs(changes: Partial<DeployInputs> = {}): DeployInputs {
  return {
    target: withHyperdriveIds(readDeployTarget("staging")),
    secretNames: REQUIRED,
    varOverrides: { CHAT_OBJECT_LOCATION_HINT: "enam" },
    requireDatabase: false,
    ...changes,
  };
}

describe("the deploy checks", () => {
  it("let both of wrangler.toml's environments through once the hint is set and the required secrets are", () => {
    for (const env of ["staging", "production"]) {
      const check = checkDeploy(inputs({ target: withHyperdriveIds(readDeployTarget(env)) }));
      expect(check.problems, env).toEqual([]);
      expect(check.notes.join("\n")).toContain("migrations not checked: DATABASE_URL_DIRECT is not set");
    }
  });

  it("refuse a missing secret, naming it, the environment and the command that sets it", () => {
    const { problems } = checkDeploy(inputs({ secretNames: new Set(["DATABASE_URL"]) }));
    expect(problems).toEqual([expect.stringContaining("secret CHAT_SECRETS_KEYS is not set for env staging")]);
    expect(problems[0]).toContain("npx wrangler secret put CHAT_SECRETS_KEYS --env staging");
  });

  it("refuse a feature's secret once the feature is on, and a secret kept in [vars]", () => {
    const sso = { OIDC_ISSUER: "https://sso.example.com", OIDC_CLIENT_ID: "chatd", OIDC_ALLOWED_DOMAINS: "example.com" };
    const hooks = { CHAT_HOOK_URL: "https://hooks.example.com/chatd" };
    const { problems } = checkDeploy(inputs({ varOverrides: { CHAT_OBJECT_LOCATION_HINT: "enam", ...sso, ...hooks, DATABASE_URL: "x" } }));
    expect(problems.join("\n")).toContain("secret OIDC_CLIENT_SECRET is not set for env staging (OIDC_ISSUER is set");
    expect(problems.join("\n")).toContain("secret CHAT_HOOK_SECRET is not set for env staging (CHAT_HOOK_URL is set");
    expect(problems.join("\n")).toContain("DATABASE_URL is a secret, not a var: remove it from [env.staging.vars]");
  });

  it("refuse an unset location hint, and name the hint of the database's Neon region", () => {
    const unset = checkDeploy(inputs({ varOverrides: {} }));
    expect(unset.problems).toEqual([expect.stringContaining("CHAT_OBJECT_LOCATION_HINT is not set for env staging")]);
    const onNeon = checkDeploy(inputs({ varOverrides: {}, directUrl: NEON_DIRECT }));
    expect(onNeon.problems).toEqual([
      expect.stringContaining(`in Neon's aws-us-east-2; set [env.staging.vars] CHAT_OBJECT_LOCATION_HINT = "enam"`),
    ]);
    const wrong = checkDeploy(inputs({ varOverrides: { CHAT_OBJECT_LOCATION_HINT: "weur" }, directUrl: NEON_DIRECT }));
    expect(wrong.problems).toEqual([expect.stringContaining(`CHAT_OBJECT_LOCATION_HINT is "weur" for env staging, but`)]);
    expect(checkDeploy(inputs({ directUrl: NEON_DIRECT, databaseUrl: NEON_POOLED })).problems).toEqual([]);
  });

  it("refuse Neon's pooled host for migrations, a missing direct URL for a deploy, and URLs of two databases", () => {
    const pooled = checkDeploy(inputs({ directUrl: NEON_POOLED }));
    expect(pooled.problems).toEqual([expect.stringContaining("DATABASE_URL_DIRECT is Neon's pooled host")]);
    expect(pooled.migrationsUrl).toBeUndefined();
    expect(checkDeploy(inputs({ requireDatabase: true })).problems).toEqual([
      expect.stringContaining("DATABASE_URL_DIRECT is not set: a deploy checks and applies migrations"),
    ]);
    const other = NEON_POOLED.replace("ep-cool-darkness-a1b2c3d4", "ep-other-thing-99999999");
    expect(checkDeploy(inputs({ directUrl: NEON_DIRECT, databaseUrl: other })).problems).toEqual([
      expect.stringContaining("are different Neon endpoints"),
    ]);
  });

  it("refuse an environment that does not repeat the top level's bindings and vars, and bad values", () => {
    const target = readDeployTarget("staging");
    const { CHAT_MAX_STEPS_PER_TURN: _, ...vars } = target.worker.vars;
    const broken = {
      ...target,
      worker: {
        ...target.worker,
        vars: { ...vars, CHAT_MAX_STEP_PER_TURN: "9" },
        r2Buckets: [],
        rateLimits: target.worker.rateLimits.slice(1),
      },
    };
    const { problems } = checkDeploy(inputs({ target: broken, secretValues: { CHAT_SECRETS_KEYS: "k1:short" } }));
    const text = problems.join("\n");
    expect(text).toContain("[env.staging.vars] lacks CHAT_MAX_STEPS_PER_TURN: wrangler does not inherit [vars]");
    expect(text).toContain("[env.staging.vars] has CHAT_MAX_STEP_PER_TURN, which src/config/env.ts does not read");
    expect(text).toContain("[[env.staging.r2_buckets]] lacks FILES");
    expect(text).toContain("[[env.staging.ratelimits]] lacks RATE_LIMIT_SIGN_IN");
    expect(text).toMatch(/env staging: .*CHAT_SECRETS_KEYS|env staging: .*k1/);
  });

  it("refuse a deploy with placeholder Hyperdrive ids, and note them in a dry run", () => {
    const real = { directUrl: NEON_DIRECT, databaseUrl: NEON_POOLED, requireDatabase: true };
    for (const env of ["staging", "production"]) {
      const placeholders = readDeployTarget(env);
      expect(placeholders.worker.vars.WORKER_DB_DRIVER, env).toBe("hyperdrive");
      const refused = checkDeploy(inputs({ ...real, target: placeholders }));
      expect(refused.problems, env).toEqual([
        expect.stringContaining(`[[env.${env}.hyperdrive]] HYPERDRIVE_UNCACHED has the placeholder id "set-me"`),
        expect.stringContaining(`[[env.${env}.hyperdrive]] HYPERDRIVE_CACHED has the placeholder id "set-me"`),
      ]);
      // The command that makes the uncached config turns its caching off.
      expect(refused.problems[0]).toContain(`npx wrangler hyperdrive create chatd-${env}-hyperdrive-uncached`);
      expect(refused.problems[0]).toContain("--caching-disabled");
      expect(refused.problems[1]).not.toContain("--caching-disabled");
      const dry = checkDeploy(inputs({ target: placeholders }));
      expect(dry.problems, env).toEqual([]);
      expect(dry.notes.join("\n")).toContain(
        `HYPERDRIVE_UNCACHED has the placeholder id "set-me" (a dry run may go with it; a deploy may not)`,
      );
      expect(checkDeploy(inputs({ ...real, target: withHyperdriveIds(placeholders) })).problems, env).toEqual([]);
    }
  });

  it("refuse one Hyperdrive config for both bindings, and a missing binding while the routes use Hyperdrive", () => {
    const target = readDeployTarget("staging");
    const same = checkDeploy(inputs({ target: withHyperdriveIds(target, UNCACHED_ID, UNCACHED_ID) }));
    expect(same.problems).toEqual([expect.stringContaining("HYPERDRIVE_UNCACHED and HYPERDRIVE_CACHED have the same id")]);
    const without = { ...target, worker: { ...target.worker, hyperdrive: [] } };
    expect(checkDeploy(inputs({ target: without })).problems).toEqual([
      expect.stringContaining(`[[env.staging.hyperdrive]] lacks HYPERDRIVE_UNCACHED, which WORKER_DB_DRIVER "hyperdrive" needs`),
      expect.stringContaining(`[[env.staging.hyperdrive]] lacks HYPERDRIVE_CACHED`),
    ]);
    // With the Neon driver the Worker needs no Hyperdrive config at all.
    const neon = { CHAT_OBJECT_LOCATION_HINT: "enam", WORKER_DB_DRIVER: "neon" };
    expect(checkDeploy(inputs({ target: without, varOverrides: neon, requireDatabase: true, directUrl: NEON_DIRECT })).problems).toEqual(
      [],
    );
  });

  it("know every secret by a setting of src/config/env.ts", () => {
    const settings = Object.keys(configSchema.shape);
    for (const name of Object.keys(WORKER_SECRETS)) expect(settings).toContain(name);
  });

  it("read Neon hosts, secret-name lists and secrets files as wrangler writes them", () => {
    expect(neonHost(NEON_POOLED)).toMatchObject({ endpoint: "ep-cool-darkness-a1b2c3d4", pooled: true, region: "aws-us-east-2" });
    expect(neonHost("postgres://u:p@ep-x-1.ap-southeast-2.aws.neon.tech/db")?.hints).toEqual(["oc", "apac"]);
    expect(neonHost("postgres://u:p@127.0.0.1:5432/db")).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), "deploy-secrets-"));
    try {
      writeFileSync(
        `${dir}/list.json`,
        JSON.stringify([
          { name: "DATABASE_URL", type: "secret_text" },
          { name: "X", type: "secret_text" },
        ]),
      );
      writeFileSync(`${dir}/names.txt`, "# set on staging\nDATABASE_URL\nCHAT_SECRETS_KEYS=ignored\n");
      writeFileSync(`${dir}/secrets.env`, "CHAT_HOOK_SECRET=from-the-file-0123\nOIDC_CLIENT_SECRET=file\n");
      expect(secretNamesFromFile(`${dir}/list.json`)).toEqual(["DATABASE_URL", "X"]);
      expect(secretNamesFromFile(`${dir}/names.txt`)).toEqual(["DATABASE_URL", "CHAT_SECRETS_KEYS"]);
      // wrangler takes a dotenv file's variable from the environment when the environment has it.
      expect(readSecretsFile(`${dir}/secrets.env`, { OIDC_CLIENT_SECRET: "shell" })).toEqual({
        values: { CHAT_HOOK_SECRET: "from-the-file-0123", OIDC_CLIENT_SECRET: "shell" },
        overriddenByEnvironment: ["OIDC_CLIENT_SECRET"],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

let fresh: OwnDatabase;
let migrated: OwnDatabase;
let dir: string;
beforeAll(async () => {
  [fresh, migrated] = await Promise.all([
    createOwnDatabase("deploy_fresh", undefined, { migrated: false }),
    createOwnDatabase("deploy_migrated"),
  ]);
  dir = mkdtempSync(join(tmpdir(), "deploy-"));
  writeFileSync(`${dir}/secret-names`, "DATABASE_URL\nCHAT_SECRETS_KEYS\n");
  writeFileSync(`${dir}/one-secret`, "DATABASE_URL\n");
});
afterAll(async () => {
  await Promise.all([fresh?.drop(), migrated?.drop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the migrations check", () => {
  it("finds every migration pending on a fresh database and none on a migrated one", async () => {
    const tags = journal().map((e) => e.tag);
    expect(await migrationStatus(fresh.url)).toEqual({ known: tags.length, pending: tags, ahead: false });
    expect(await migrationStatus(migrated.url)).toEqual({ known: tags.length, pending: [], ahead: false });
  });
});

function deploy(args: string[], directUrl?: string): Promise<ScriptRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL_DIRECT: directUrl };
  delete env.DATABASE_URL;
  if (directUrl === undefined) delete env.DATABASE_URL_DIRECT;
  return runScript("scripts/deploy.ts", args, env);
}

const DRY = ["--env", "staging", "--dry-run", "--skip-web-build"];
const HINT = ["--var", "CHAT_OBJECT_LOCATION_HINT:weur"];

// Each run is a process that loads wrangler's config reader first: seconds, more on a loaded
// machine, so the three run side by side. A complete configuration reaching `wrangler deploy
// --dry-run` is what .ci/run does for both environments on every run, so it is not repeated here.
describe.concurrent("npm run deploy -- --dry-run", { timeout: 90_000 }, () => {
  it("stops on a missing secret", async () => {
    const run = await deploy([...DRY, ...HINT, "--secrets-from", `${dir}/one-secret`], migrated.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("secret CHAT_SECRETS_KEYS is not set for env staging");
    expect(run.stderr).toContain('"event":"deploy_refused"');
    expect(run.stderr).not.toContain("deploy_wrangler");
  });

  it("stops on a missing location hint", async () => {
    const run = await deploy([...DRY, "--secrets-from", `${dir}/secret-names`], migrated.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("CHAT_OBJECT_LOCATION_HINT is not set for env staging");
    expect(run.stderr).not.toContain("deploy_wrangler");
  });

  it("stops on a database without the migrations, naming them", async () => {
    const run = await deploy([...DRY, ...HINT, "--secrets-from", `${dir}/secret-names`], fresh.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${journal().length} migration(s) not applied to`);
    expect(run.stderr).toContain("0000_init");
    expect(run.stderr).toContain("postgres:***@127.0.0.1");
    expect(run.stderr).not.toContain("deploy_wrangler");
  });
});
