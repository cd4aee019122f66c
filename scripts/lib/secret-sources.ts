/**
 * Where a deploy learns which secrets its Worker has: Cloudflare (`wrangler secret list`, which
 * needs the account and the network), a file naming them (`--secrets-from`, for dry runs and CI),
 * and a secrets file the deploy uploads itself (`--secrets-file`, wrangler's own flag: a first
 * deploy, whose Worker does not exist yet, can set secrets no other way).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { parseEnv } from "node:util";
import { ROOT_DIR } from "./paths";
import { WRANGLER_CLI } from "./spawn-wrangler";

const run = promisify(execFile);

/**
 * Secret names from a file: a JSON array of names or of `{name}` (what `wrangler secret list`
 * prints), or one name per line (`#` comments; a `NAME=value` line counts as NAME, its value unread).
 */
export function secretNamesFromFile(path: string): string[] {
  const text = readFileSync(path, "utf8");
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) {
      return parsed.map((item: unknown) => {
        const name = typeof item === "string" ? item : (item as { name?: unknown } | null)?.name;
        if (typeof name !== "string") throw new Error(`${path}: each entry must be a name or {"name": ...}`);
        return name;
      });
    }
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  return text
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => line !== "")
    .map((line) => line.split("=")[0]?.trim() ?? "");
}

export interface SecretsFile {
  values: Record<string, string>;
  /** Names whose value wrangler takes from this process's environment instead (its rule for dotenv files). */
  overriddenByEnvironment: string[];
}

/**
 * A `--secrets-file` as `wrangler deploy` reads it: a JSON object, else dotenv, where a variable of
 * the process environment wins over the file's value of the same name.
 */
export function readSecretsFile(path: string, environment: NodeJS.ProcessEnv = process.env): SecretsFile {
  const text = readFileSync(path, "utf8");
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      return { values: Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)])), overriddenByEnvironment: [] };
    }
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  const values = parseEnv(text) as Record<string, string>;
  const overridden = Object.keys(values).filter((name) => environment[name] !== undefined);
  for (const name of overridden) values[name] = environment[name] as string;
  return { values, overriddenByEnvironment: overridden };
}

export class SecretListError extends Error {
  override name = "SecretListError";
}

/** The names of the secrets the environment's Worker has on Cloudflare (`wrangler secret list`). */
export async function listWorkerSecrets(env: string): Promise<string[]> {
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, [WRANGLER_CLI, "secret", "list", "--env", env, "--format", "json"], {
      cwd: ROOT_DIR,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      maxBuffer: 4 * 1024 * 1024,
      // Without a terminal wrangler cannot ask to log in; a network that never answers ends here.
      timeout: 60_000,
    }));
  } catch (err) {
    const output =
      err instanceof Error && "stderr" in err ? `${String(err.stderr)}${String((err as { stdout?: unknown }).stdout ?? "")}` : "";
    throw new SecretListError(`wrangler secret list --env ${env} failed: ${(output || String(err)).trim()}`);
  }
  const start = stdout.indexOf("[");
  const names = (JSON.parse(start >= 0 ? stdout.slice(start) : stdout) as { name: string }[]).map((s) => s.name);
  return names;
}
