/**
 * What `npm run deploy` checks about one environment before anything is built or sent, without
 * the network: its bindings and [vars] repeat the top level's (wrangler inherits neither), every
 * var is valid for the Worker, the secrets it needs are set and none sits in [vars], the location
 * hint is set and matches the Neon region of its database, and the database URLs are the right
 * kind, and the Hyperdrive configs are real ones when the Worker's routes use them. Each problem is one sentence that says what to do (docs/deploy.md).
 */
import { ConfigError, configSchema, LOCATION_HINTS, parseConfig } from "../../src/config/env";
import { RATE_LIMITS } from "../../src/limits/rate-limits";
import { checkHyperdrive } from "./deploy-hyperdrive";
import type { DeployTarget } from "./deploy-target";
import { neonHost, redacted } from "./neon-host";
import { SECRET_PLACEHOLDERS, WORKER_SECRETS } from "./worker-secrets";

/** wrangler.toml's value for an environment whose region nobody chose yet; the Worker refuses it too. */
export const LOCATION_HINT_PLACEHOLDER = "set-me";

export interface DeployInputs {
  target: DeployTarget;
  /** The secrets the Worker will have: those already set, and those the secrets file uploads. */
  secretNames: ReadonlySet<string>;
  /** Secret values this run knows (from a secrets file): checked as the Worker checks them. */
  secretValues?: Readonly<Record<string, string>>;
  /** `--var NAME:VALUE` overrides, deployed with the Worker. */
  varOverrides?: Readonly<Record<string, string>>;
  /** DATABASE_URL_DIRECT: where migrations are checked and applied. */
  directUrl?: string | undefined;
  /** The Worker's DATABASE_URL when this run knows it (the secrets file, else the environment). */
  databaseUrl?: string | undefined;
  /** A real deploy needs the direct URL; a dry run may go without, with a note. */
  requireDatabase: boolean;
}

export interface DeployCheck {
  problems: string[];
  notes: string[];
  /** DATABASE_URL_DIRECT when migrations may be read and applied over it. */
  migrationsUrl?: string;
}

export function checkDeploy(inputs: DeployInputs): DeployCheck {
  const result: DeployCheck = { problems: [], notes: [] };
  const vars = { ...inputs.target.worker.vars, ...inputs.varOverrides };
  checkBindings(inputs.target, result);
  checkVars(inputs.target, vars, result);
  checkSecrets(inputs, vars, result);
  checkDatabaseUrls(inputs, result);
  checkLocationHint(inputs, vars, result);
  checkHyperdrive(inputs.target, vars, inputs.requireDatabase, result);
  return result;
}

function checkBindings({ env, worker, local }: DeployTarget, { problems }: DeployCheck): void {
  const inherit = "wrangler does not inherit bindings into an environment: repeat it from the top level";
  for (const d of local.durableObjects) {
    if (!worker.durableObjects.some((b) => b.name === d.name && b.className === d.className)) {
      problems.push(`[[env.${env}.durable_objects.bindings]] lacks ${d.name} (class ${d.className}): ${inherit}`);
    }
  }
  for (const r of local.r2Buckets) {
    if (!worker.r2Buckets.some((b) => b.binding === r.binding && b.bucketName !== "")) {
      problems.push(`[[env.${env}.r2_buckets]] lacks ${r.binding}: give it a bucket of its own (npx wrangler r2 bucket create NAME)`);
    }
  }
  const periods = new Map(Object.values(RATE_LIMITS).map((l) => [l.binding as string, l.periodSeconds as number]));
  for (const l of local.rateLimits) {
    const own = worker.rateLimits.find((r) => r.name === l.name);
    if (!own) problems.push(`[[env.${env}.ratelimits]] lacks ${l.name}: ${inherit}`);
    else if (own.period !== periods.get(l.name)) {
      problems.push(
        `[[env.${env}.ratelimits]] ${l.name} has period ${own.period}, not the ${periods.get(l.name)} s src/limits/rate-limits.ts answers Retry-After with`,
      );
    }
  }
  if (worker.crons.length === 0) {
    problems.push(`env ${env} has no cron trigger: the acquisition sweep, heartbeat cleanup and retention run on it ([triggers] crons)`);
  }
  if (worker.name === "" || worker.name === local.name) {
    problems.push(`[env.${env}] needs a Worker name of its own (name = "${local.name}-${env}"), not the local configuration's`);
  }
}

function checkVars({ env, local }: DeployTarget, vars: Record<string, string>, { problems }: DeployCheck): void {
  const missing = Object.keys(local.vars).filter((key) => !Object.hasOwn(vars, key));
  if (missing.length > 0) {
    problems.push(
      `[env.${env}.vars] lacks ${missing.join(", ")}: wrangler does not inherit [vars], so the Worker would run without ` +
        `${missing.length === 1 ? "it" : "them"}; copy ${missing.length === 1 ? "it" : "them"} from the top-level [vars]`,
    );
  }
  const settings = new Set(Object.keys(configSchema.shape));
  const unknown = Object.keys(vars).filter((key) => !settings.has(key));
  if (unknown.length > 0) {
    problems.push(`[env.${env}.vars] has ${unknown.join(", ")}, which src/config/env.ts does not read (renamed, or misspelt?)`);
  }
  for (const name of Object.keys(WORKER_SECRETS)) {
    if (Object.hasOwn(vars, name)) {
      problems.push(
        `${name} is a secret, not a var: remove it from [env.${env}.vars] and run npx wrangler secret put ${name} --env ${env}`,
      );
    }
  }
  if ((vars.NEON_WS_PROXY ?? "") !== "" || (vars.NEON_PIPELINE_CONNECT ?? "off") !== "off") {
    problems.push(`env ${env} sets NEON_WS_PROXY or NEON_PIPELINE_CONNECT: they are for the local stack only; keep "" and "off"`);
  }
}

function checkSecrets(inputs: DeployInputs, vars: Record<string, string>, result: DeployCheck): void {
  const { env, worker } = inputs.target;
  const always = Object.entries(WORKER_SECRETS).flatMap(([name, s]) => (s.neededWhen === "always" ? [name] : []));
  const unlisted = always.filter((name) => !worker.requiredSecrets.includes(name));
  if (unlisted.length > 0) {
    result.problems.push(`[env.${env}.secrets] required lacks ${unlisted.join(", ")}: the Worker cannot start without them`);
  }
  const needed = new Map<string, string>();
  for (const name of [...worker.requiredSecrets, ...always]) needed.set(name, "required");
  for (const [name, secret] of Object.entries(WORKER_SECRETS)) {
    if (typeof secret.neededWhen === "object" && (vars[secret.neededWhen.varSet] ?? "") !== "") {
      needed.set(name, `${secret.neededWhen.varSet} is set`);
    }
  }
  for (const [name, why] of needed) {
    if (inputs.secretNames.has(name)) continue;
    const what = WORKER_SECRETS[name]?.what;
    result.problems.push(
      `secret ${name} is not set for env ${env} (${why}${what ? `; ${what}` : ""}): ` +
        `npx wrangler secret put ${name} --env ${env}, or pass it in --secrets-file`,
    );
  }
  if (!inputs.secretNames.has("CHAT_BOOTSTRAP_SECRET")) {
    result.notes.push("CHAT_BOOTSTRAP_SECRET is not set: POST /users/first is off; claim the deployment with npm run db:bootstrap");
  }
  if ((vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? "") !== "" && !inputs.secretNames.has("OTEL_EXPORTER_OTLP_HEADERS")) {
    result.notes.push("OTEL_EXPORTER_OTLP_ENDPOINT is set without the secret OTEL_EXPORTER_OTLP_HEADERS: spans go without an API key");
  }
  // Every var as the Worker parses it; secrets this run cannot see stand in as valid placeholders
  // (whether they are set is the check above), and the hint is the check below's.
  try {
    parseConfig({ ...vars, ...SECRET_PLACEHOLDERS, ...inputs.secretValues, CHAT_OBJECT_LOCATION_HINT: "" });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const problem of err.problems) result.problems.push(`env ${env}: ${problem}`);
  }
}

function checkDatabaseUrls(inputs: DeployInputs, result: DeployCheck): void {
  const { problems, notes } = result;
  const { directUrl, databaseUrl } = inputs;
  if (directUrl === undefined || directUrl === "") {
    if (inputs.requireDatabase) {
      problems.push(
        "DATABASE_URL_DIRECT is not set: a deploy checks and applies migrations over the database's direct (not -pooler) " +
          "connection string; export it for this run",
      );
    } else notes.push("migrations not checked: DATABASE_URL_DIRECT is not set (a dry run may go without; a deploy may not)");
    return;
  }
  if (!/^postgres(ql)?:\/\/[^/]/.test(directUrl)) {
    problems.push("DATABASE_URL_DIRECT must be a postgres:// or postgresql:// connection string");
    return;
  }
  const direct = neonHost(directUrl);
  if (direct?.pooled) {
    problems.push(
      `DATABASE_URL_DIRECT is Neon's pooled host (${direct.host}): migrations hold a session advisory lock ` +
        `(scripts/lib/migrate.ts), which a transaction-mode pooler does not keep; use the host without -pooler`,
    );
  }
  const worker = databaseUrl ? neonHost(databaseUrl) : null;
  if (!direct?.pooled) result.migrationsUrl = directUrl;
  if (direct && worker && direct.endpoint !== worker.endpoint) {
    problems.push(
      `DATABASE_URL_DIRECT (${direct.endpoint}) and DATABASE_URL (${worker.endpoint}) are different Neon endpoints: ` +
        "migrations would go to another database than the Worker's",
    );
  }
  if (worker && !worker.pooled) {
    notes.push(`DATABASE_URL is Neon's direct host (${worker.host}); the pooled one (-pooler) is the one to give the Worker`);
  }
  notes.push(`database: ${redacted(directUrl)}`);
}

function checkLocationHint(inputs: DeployInputs, vars: Record<string, string>, { problems, notes }: DeployCheck): void {
  const env = inputs.target.env;
  const hint = vars.CHAT_OBJECT_LOCATION_HINT ?? "";
  const neon = [inputs.directUrl, inputs.databaseUrl].flatMap((url) => (url ? [neonHost(url)] : [])).find((n) => n !== null);
  const set = `set [env.${env}.vars] CHAT_OBJECT_LOCATION_HINT`;
  const region = neon ? `its database (${neon.host}) is in Neon's ${neon.region}` : "";
  if (hint === "" || hint === LOCATION_HINT_PLACEHOLDER) {
    const why = "unset, each chat's Durable Object is placed for good wherever its first caller was";
    if (neon && neon.hints.length > 0)
      problems.push(`CHAT_OBJECT_LOCATION_HINT is not set for env ${env}: ${region}; ${set} = "${neon.hints[0]}" (${why})`);
    else
      problems.push(
        `CHAT_OBJECT_LOCATION_HINT is not set for env ${env}: ${set} to the region nearest its database, one of ${LOCATION_HINTS.join(", ")} (${why})`,
      );
    return;
  }
  if (!(LOCATION_HINTS as readonly string[]).includes(hint)) {
    problems.push(`CHAT_OBJECT_LOCATION_HINT "${hint}" for env ${env} is not a location hint: one of ${LOCATION_HINTS.join(", ")}`);
    return;
  }
  if (!neon)
    notes.push(`CHAT_OBJECT_LOCATION_HINT "${hint}" not checked against the database: no Neon host in DATABASE_URL_DIRECT or DATABASE_URL`);
  else if (neon.hints.length === 0)
    notes.push(`CHAT_OBJECT_LOCATION_HINT "${hint}" not checked: Neon's ${neon.region} is not in scripts/lib/neon-host.ts`);
  else if (!neon.hints.includes(hint as (typeof neon.hints)[number])) {
    problems.push(`CHAT_OBJECT_LOCATION_HINT is "${hint}" for env ${env}, but ${region}: ${set} = "${neon.hints[0]}"`);
  }
}
