/**
 * The browser the browser tests drive (playwright-core, no bundled browser): Debian's `chromium`
 * package. Installed with apt-get when missing (as root; `apt-get update` first when the package
 * lists do not know it), so a fresh machine passes; otherwise an error that says what to do.
 * `CHROMIUM_PATH` points at another Chromium build.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { log } from "./log";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

export class ChromiumUnavailableError extends Error {
  override name = "ChromiumUnavailableError";
}

function found(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new ChromiumUnavailableError(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  return CANDIDATES.find((p) => existsSync(p));
}

function aptInstall(): void {
  const run = (args: string[]) =>
    execFileSync("apt-get", args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  try {
    run(["install", "-y", "--no-install-recommends", "chromium"]);
  } catch {
    // Fresh machines have empty or stale package lists.
    run(["update"]);
    run(["install", "-y", "--no-install-recommends", "chromium"]);
  }
}

/** The path of a Chromium executable, installing Debian's package when there is none. */
export function ensureChromium(): string {
  const existing = found();
  if (existing) return existing;
  const howTo = "install it (Debian/Ubuntu: `sudo apt-get update && sudo apt-get install -y chromium`) or set CHROMIUM_PATH";
  if (process.platform !== "linux" || process.getuid?.() !== 0) {
    throw new ChromiumUnavailableError(`The browser tests need Chromium and none was found: ${howTo}.`);
  }
  log("info", "chromium_installing", { via: "apt-get" });
  try {
    aptInstall();
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim().split("\n").slice(-3).join(" ");
    throw new ChromiumUnavailableError(`Could not install Chromium with apt-get (${stderr || String(err)}): ${howTo}.`);
  }
  const installed = found();
  if (!installed) throw new ChromiumUnavailableError(`apt-get installed chromium but no executable was found: ${howTo}.`);
  log("info", "chromium_installed", { path: installed });
  return installed;
}
