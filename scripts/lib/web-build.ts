/**
 * Builds the web app (`web/`) into `dist/web/`, the Worker's static assets. Used by the test
 * setup and `npm run build:web`; `npm run dev` runs it in watch mode (`watchWebApp`).
 */
import { build, type Rollup } from "vite";
import { ROOT_DIR } from "./paths";

const CONFIG = `${ROOT_DIR}web/vite.config.ts`;

export async function buildWebApp(): Promise<void> {
  await build({ configFile: CONFIG });
}

/** Rebuilds on every change under web/ (and the SDK it imports); `close()` stops watching. */
export async function watchWebApp(): Promise<{ close(): Promise<void> }> {
  const watcher = (await build({ configFile: CONFIG, build: { watch: {} } })) as Rollup.RollupWatcher;
  return { close: () => watcher.close() };
}
