import { defineConfig } from "drizzle-kit";

// `npm run db:generate` writes SQL migrations from src/db/schema.ts. Hand-written SQL (the spec's
// triggers) lives in custom migrations (`drizzle-kit generate --custom`). Landed files are never edited.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/index.ts",
  out: "./migrations",
  casing: "snake_case",
});
