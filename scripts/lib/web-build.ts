/**
 * Builds the web app (`web/`) into `dist/web/`, the Worker's static assets. Used by the test
 * setup and `npm run build:web`; `npm run dev` runs it in watch mode (`watchWebApp`).
 */
import { build, type Rollup } from "vite";
import { log } from "./log";
import { ROOT_DIR } from "./paths";

const CONFIG = `${ROOT_DIR}web/vite.config.ts`;

export async function buildWebApp(): Promise<void> {
  await build({ configFile: CONFIG });
}

export interface WebAppWatcher {
  close(): Promise<void>;
}

/**
 * Builds once (resolving when that build is done, or rejecting if it failed), then rebuilds on
 * every change under web/ and the SDK it imports, logging each rebuild.
 */
export async function watchWebApp(): Promise<WebAppWatcher> {
  // Files are overwritten in place, never the folder emptied: a Worker serving it meanwhile (the
  // browser tests beside the dev-command test) never finds it missing.
  const watcher = (await build({ configFile: CONFIG, build: { watch: {}, emptyOutDir: false } })) as Rollup.RollupWatcher;
  await new Promise<void>((resolve, reject) => {
    let first = true;
    watcher.on("event", (event) => {
      if (event.code === "END") {
        if (first) resolve();
        else log("info", "web_app_rebuilt");
        first = false;
      } else if (event.code === "ERROR") {
        if (first) reject(event.error);
        else log("error", "web_app_build_failed", { error: event.error.message });
        first = false;
      }
      if ("result" in event) event.result?.close();
    });
  });
  return { close: () => watcher.close() };
}
