/**
 * The deploy check of an environment's Hyperdrive configs (docs/deploy.md "Hyperdrive"). With
 * WORKER_DB_DRIVER "hyperdrive" the Worker's routes need both [[hyperdrive]] bindings of the top
 * level, each with the id `wrangler hyperdrive create` printed for this environment, and two
 * different ones: caching is a setting of a config, so one id for both would cache the reads that
 * must be fresh (or cache nothing). With "neon" the bindings may be left out; any that stay must
 * name real configs, since `wrangler deploy` refuses an unknown id. A dry run, which sends nothing
 * and may run where nobody has created the configs (CI), notes placeholder ids instead of refusing.
 */
import type { DeployTarget } from "./deploy-target";

/** wrangler.toml's id for a config not created yet; refused by a deploy. */
export const HYPERDRIVE_ID_PLACEHOLDER = "set-me";

/** A Hyperdrive config's id: 32 hex digits. */
const HYPERDRIVE_ID = /^[0-9a-f]{32}$/;

/** `deploying`: a real deploy (placeholders refused), not a dry run (placeholders noted). */
export function checkHyperdrive(
  target: DeployTarget,
  vars: Record<string, string>,
  deploying: boolean,
  { problems, notes }: { problems: string[]; notes: string[] },
): void {
  const { env, worker, local } = target;
  const driver = vars.WORKER_DB_DRIVER ?? "neon";
  const create = (binding: string) =>
    `npx wrangler hyperdrive create chatd-${env}-${binding.toLowerCase().replace(/_/g, "-")} --connection-string "$DATABASE_URL_DIRECT"` +
    (binding.endsWith("_UNCACHED") ? " --caching-disabled" : "");
  for (const { binding } of local.hyperdrive) {
    const own = worker.hyperdrive.find((h) => h.binding === binding);
    if (!own) {
      if (driver === "hyperdrive")
        problems.push(
          `[[env.${env}.hyperdrive]] lacks ${binding}, which WORKER_DB_DRIVER "hyperdrive" needs: ${create(binding)}, ` +
            "then add the binding with the id it prints",
        );
      continue;
    }
    if (HYPERDRIVE_ID.test(own.id)) continue;
    const what =
      own.id === HYPERDRIVE_ID_PLACEHOLDER
        ? `[[env.${env}.hyperdrive]] ${binding} has the placeholder id "${own.id}"`
        : `[[env.${env}.hyperdrive]] ${binding} has "${own.id}", which is not a Hyperdrive config id (32 hex digits)`;
    const fix =
      driver === "hyperdrive"
        ? `create the config (${create(binding)}) and put the id it prints there`
        : `create the config (${create(binding)}), or remove the binding while WORKER_DB_DRIVER is "neon"`;
    if (deploying) problems.push(`${what}: ${fix}`);
    else notes.push(`${what} (a dry run may go with it; a deploy may not): ${fix}`);
  }
  const [uncached, cached] = ["HYPERDRIVE_UNCACHED", "HYPERDRIVE_CACHED"].map((b) => worker.hyperdrive.find((h) => h.binding === b)?.id);
  if (uncached !== undefined && uncached === cached && HYPERDRIVE_ID.test(uncached)) {
    problems.push(
      `[[env.${env}.hyperdrive]] HYPERDRIVE_UNCACHED and HYPERDRIVE_CACHED have the same id: caching is set per config, ` +
        `so they must be two (${create("HYPERDRIVE_UNCACHED")})`,
    );
  }
}
