/** `npm run build:web`: the web app into dist/web/ (scripts/lib/web-build.ts). */
import { buildWebApp } from "./lib/web-build";

await buildWebApp();
