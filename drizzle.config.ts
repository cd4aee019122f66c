import { defineConfig } from "drizzle-kit";

// `npm run db:generate` writes a SQL migration and its meta/ snapshot from src/db/schema/. Hand-written
// SQL (the spec's triggers) lives in custom migrations (`drizzle-kit generate --custom`, which writes
// the snapshot too). `npm run db:check` (in `npm run lint`) fails when the two drift. Landed files are never edited.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/index.ts",
  out: "./migrations",
  casing: "snake_case",
});
