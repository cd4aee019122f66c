/**
 * `npm run deploy -- --env staging|production [--dry-run]`: checks the environment's configuration
 * (scripts/lib/deploy-checks.ts), the secrets its Worker has and the migrations its database has
 * applied, stops with one line per problem, then builds the web app, applies pending migrations
 * over DATABASE_URL_DIRECT and runs `wrangler deploy --env ...` (docs/deploy.md). `--dry-run`
 * writes nothing anywhere: pending migrations are a refusal, and wrangler only bundles.
 * Progress on stderr, a summary on stdout; exit code 1 when refused or failed, 2 on bad usage.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type DeployCheck, checkDeploy } from "./lib/deploy-checks";
import { type DeployTarget, DeployTargetError, readDeployTarget } from "./lib/deploy-target";
import { log } from "./lib/log";
import { runMigrations } from "./lib/migrate";
import { migrationStatus } from "./lib/migration-status";
import { redacted } from "./lib/neon-host";
import { ROOT_DIR } from "./lib/paths";
import { listWorkerSecrets, readSecretsFile, type SecretsFile, secretNamesFromFile } from "./lib/secret-sources";
import { WRANGLER_CLI } from "./lib/spawn-wrangler";
import { buildWebApp } from "./lib/web-build";

const USAGE =
  "usage: npm run deploy -- --env NAME [--dry-run] [--secrets-from FILE] [--secrets-file FILE] [--var NAME:VALUE]... [--outdir DIR] [--skip-web-build]";

function usage(error: string): never {
  log("error", "deploy_usage", { error: `${error}\n${USAGE}` });
  process.exit(2);
}

function refuse(env: string, problems: string[]): never {
  for (const problem of problems) log("error", "deploy_problem", { env, problem });
  log("error", "deploy_refused", { env, problems: problems.length, help: "docs/deploy.md" });
  process.exit(1);
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      env: { type: "string" },
      "dry-run": { type: "boolean", default: false },
      "secrets-from": { type: "string" },
      "secrets-file": { type: "string" },
      var: { type: "string", multiple: true, default: [] },
      outdir: { type: "string" },
      "skip-web-build": { type: "boolean", default: false },
    },
  }).values;
}
try {
  args = parse();
} catch (err) {
  usage(err instanceof Error ? err.message : String(err));
}
const env = args.env;
if (!env) usage("--env is required: the deploy is of one [env.NAME] of wrangler.toml, never the local top level");
const dryRun = args["dry-run"];
// Paths as typed in the shell: npm runs scripts from the package root, INIT_CWD is where it was called.
const fromShell = (path: string | undefined) => (path === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), path));
const secretsFilePath = fromShell(args["secrets-file"]);
const secretsFromPath = fromShell(args["secrets-from"]);
const varOverrides: Record<string, string> = {};
for (const pair of args.var) {
  const at = pair.indexOf(":");
  if (at < 1) usage(`--var ${pair}: expected NAME:VALUE`);
  varOverrides[pair.slice(0, at)] = pair.slice(at + 1);
}

log("info", "deploy_start", { env, dry_run: dryRun });
let target: DeployTarget;
try {
  target = readDeployTarget(env);
} catch (err) {
  if (!(err instanceof DeployTargetError)) throw err;
  refuse(env, [err.message]);
}
log("info", "deploy_target", {
  env,
  worker: target.worker.name,
  buckets: target.worker.r2Buckets.map((b) => b.bucketName),
  crons: target.worker.crons,
  vars_overridden: Object.keys(varOverrides),
});

const { names: secretNames, file: secretsFile, problems: secretProblems } = await secretsOf(env);
const directUrl = process.env.DATABASE_URL_DIRECT;
const check: DeployCheck = checkDeploy({
  target,
  secretNames,
  secretValues: secretsFile?.values,
  varOverrides,
  directUrl,
  databaseUrl: secretsFile?.values.DATABASE_URL ?? process.env.DATABASE_URL,
  requireDatabase: !dryRun,
});
const problems = [...secretProblems, ...check.problems];
for (const note of check.notes) log("info", "deploy_note", { env, note });

let pending: string[] = [];
if (check.migrationsUrl) {
  try {
    const status = await migrationStatus(check.migrationsUrl);
    pending = status.pending;
    log("info", "deploy_migrations", { env, known: status.known, pending: status.pending, ahead: status.ahead });
    if (status.ahead) {
      log("warn", "deploy_note", {
        env,
        note: "the database has a migration newer than this checkout's: deploying older code over a newer schema (docs/deploy.md, Rollbacks)",
      });
    }
    if (pending.length > 0 && dryRun) {
      problems.push(
        `${pending.length} migration(s) not applied to ${redacted(check.migrationsUrl)}: ${pending.join(", ")}. ` +
          "A deploy without --dry-run applies them first, or run npm run db:migrate with DATABASE_URL set to the direct URL",
      );
    }
  } catch (err) {
    problems.push(`cannot read the migrations of ${redacted(check.migrationsUrl)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
if (problems.length > 0) refuse(env, problems);
log("info", "deploy_checked", { env, secrets: [...secretNames].sort(), pending_migrations: pending.length });

if (!args["skip-web-build"]) {
  const started = Date.now();
  await buildWebApp();
  log("info", "deploy_web_built", { ms: Date.now() - started });
}

// Migrations first, then the code: every migration is backward compatible with the code before it.
if (!dryRun && pending.length > 0 && check.migrationsUrl) {
  log("info", "deploy_migrating", { env, pending });
  try {
    await runMigrations(check.migrationsUrl);
  } catch (err) {
    log("error", "deploy_failed", { env, step: "migrations", error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
}

const outdir = fromShell(args.outdir) ?? `${ROOT_DIR}.wrangler/deploy/${env}`;
const wranglerArgs = [
  "deploy",
  "--env",
  env,
  ...Object.entries(varOverrides).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ...(secretsFilePath ? ["--secrets-file", secretsFilePath] : []),
  ...(dryRun ? ["--dry-run", "--outdir", outdir] : []),
];
log("info", "deploy_wrangler", { env, command: `wrangler ${wranglerArgs.join(" ")}` });
const code = await runWrangler(wranglerArgs);
if (code !== 0) {
  log("error", "deploy_failed", { env, step: "wrangler deploy", exit_code: code });
  process.exit(1);
}
log("info", "deploy_done", { env, worker: target.worker.name, dry_run: dryRun });
process.stdout.write(
  `${JSON.stringify({ env, worker: target.worker.name, dry_run: dryRun, migrations_applied: dryRun ? [] : pending, ...(dryRun ? { outdir } : {}) }, null, 2)}\n`,
);

/** The secret names the Worker will have, from the sources the flags name (scripts/lib/secret-sources.ts). */
async function secretsOf(env: string): Promise<{ names: Set<string>; file?: SecretsFile; problems: string[] }> {
  const names = new Set<string>();
  const problems: string[] = [];
  let file: SecretsFile | undefined;
  const path = secretsFilePath;
  if (path) {
    file = readSecretsFile(path);
    for (const name of Object.keys(file.values)) names.add(name);
    log("info", "deploy_secrets", { env, source: "secrets file", names: Object.keys(file.values) });
    if (file.overriddenByEnvironment.length > 0) {
      log("warn", "deploy_note", {
        env,
        note: `wrangler uploads these from this shell's environment, not the secrets file: ${file.overriddenByEnvironment.join(", ")}`,
      });
    }
  }
  const from = secretsFromPath;
  if (from) {
    const listed = secretNamesFromFile(from);
    for (const name of listed) names.add(name);
    log("info", "deploy_secrets", { env, source: from, names: listed });
    return { names, file, problems };
  }
  try {
    const listed = await listWorkerSecrets(env);
    for (const name of listed) names.add(name);
    log("info", "deploy_secrets", { env, source: "wrangler secret list", names: listed });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // A first deploy: the Worker does not exist, so it has no secrets but the file's.
    if (file) log("warn", "deploy_note", { env, note: `counting the secrets file's secrets only: ${message}` });
    else problems.push(`${message} (a dry run without the account: --secrets-from FILE names the secrets instead)`);
  }
  return { names, file, problems };
}

/** `wrangler <args>` from the checkout, its output on our stderr; resolves with its exit code. */
function runWrangler(wranglerArgs: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER_CLI, ...wranglerArgs], {
      cwd: ROOT_DIR,
      stdio: ["inherit", "pipe", "pipe"],
      env: { ...process.env, ...(dryRun ? { WRANGLER_SEND_METRICS: "false" } : {}) },
    });
    child.stdout.pipe(process.stderr, { end: false });
    child.stderr.pipe(process.stderr, { end: false });
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
}
