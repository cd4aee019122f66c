/**
 * A deployed environment as wrangler resolves it from wrangler.toml (`[env.NAME]` over the top
 * level), beside the top level itself: the local configuration, which each environment must repeat
 * since wrangler inherits no binding, [vars] or [secrets] into a named environment.
 */
import { unstable_readConfig } from "wrangler";
import { ROOT_DIR } from "./paths";

export const WRANGLER_CONFIG = `${ROOT_DIR}wrangler.toml`;

/** The parts of one resolved configuration the deploy checks read. */
export interface WorkerConfig {
  name: string;
  vars: Record<string, string>;
  requiredSecrets: string[];
  durableObjects: { name: string; className: string }[];
  r2Buckets: { binding: string; bucketName: string }[];
  rateLimits: { name: string; limit: number; period: number }[];
  crons: string[];
  hyperdrive: { binding: string; id: string }[];
}

export interface DeployTarget {
  env: string;
  worker: WorkerConfig;
  /** The top level: what `npm run dev` and the tests run. */
  local: WorkerConfig;
}

export class DeployTargetError extends Error {
  override name = "DeployTargetError";
}

export function readDeployTarget(env: string, configPath = WRANGLER_CONFIG): DeployTarget {
  const local = workerConfig(unstable_readConfig({ config: configPath }, { hideWarnings: true }));
  let worker: WorkerConfig;
  try {
    worker = workerConfig(unstable_readConfig({ config: configPath, env }, { hideWarnings: true }));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // wrangler's own message goes on to suggest a section; its first facts are what matter here.
    const known = /environment names are: (\[[^\]]*\])/.exec(message)?.[1];
    if (message.includes("No environment found")) {
      throw new DeployTargetError(`wrangler.toml has no [env.${env}]; the environments it declares: ${known ?? "none"}`);
    }
    throw new DeployTargetError(`wrangler.toml could not be read for env ${env}: ${message}`);
  }
  return { env, worker, local };
}

type ResolvedConfig = ReturnType<typeof unstable_readConfig>;

function workerConfig(config: ResolvedConfig): WorkerConfig {
  return {
    name: config.name ?? "",
    vars: Object.fromEntries(
      Object.entries(config.vars ?? {}).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]),
    ),
    requiredSecrets: [...(config.secrets?.required ?? [])],
    durableObjects: (config.durable_objects?.bindings ?? []).map((b: { name: string; class_name: string }) => ({
      name: b.name,
      className: b.class_name,
    })),
    r2Buckets: (config.r2_buckets ?? []).map((b: { binding: string; bucket_name?: string }) => ({
      binding: b.binding,
      bucketName: b.bucket_name ?? "",
    })),
    rateLimits: (config.ratelimits ?? []).map((r: { name: string; simple: { limit: number; period: number } }) => ({
      name: r.name,
      limit: r.simple.limit,
      period: r.simple.period,
    })),
    crons: [...(config.triggers?.crons ?? [])],
    hyperdrive: (config.hyperdrive ?? []).map((h: { binding: string; id: string }) => ({ binding: h.binding, id: h.id })),
  };
}
