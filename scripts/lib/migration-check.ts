/**
 * Whether migrations/ is up to date with the drizzle schema: `drizzle-kit generate`, run into a
 * temporary copy of the folder, must write nothing. drizzle-kit diffs the schema against the
 * latest snapshot in meta/, so a schema change without its migration, or a migration without its
 * snapshot, shows up here as SQL it would write. Every journal entry must also have its snapshot.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import config from "../../drizzle.config";
import { MIGRATIONS_DIR } from "./migrate";
import { ROOT_DIR } from "./paths";

const DRIZZLE_KIT = join(ROOT_DIR, "node_modules/drizzle-kit/bin.cjs");
const GENERATE_TIMEOUT_MS = 120_000;
// drizzle-kit asks whether a table or column was renamed when one is dropped and another added;
// without a terminal it prints this, writes nothing and still exits 0.
const PROMPT_REFUSED = "Interactive prompts require a TTY";
// What it prints when the schema matches the latest snapshot; anything else without SQL is a failure.
const NOTHING_TO_DO = "No schema changes";

export interface MigrationCheckOptions {
  /** The schema module drizzle-kit reads; drizzle.config.ts's by default. */
  schema?: string;
  migrationsDir?: string;
}

export type MigrationCheck =
  | { ok: true; migrations: number }
  /** A journal entry without its meta/NNNN_snapshot.json. */
  | { ok: false; problem: "missing_snapshots"; tags: string[] }
  /** The SQL drizzle-kit would write: the first line of each statement, which names the table and column. */
  | { ok: false; problem: "pending_sql"; statements: string[] }
  /** drizzle-kit would ask about renames; what differs by name between the schema and the latest snapshot. */
  | { ok: false; problem: "rename_prompt"; changes: string[] }
  | { ok: false; problem: "drizzle_kit_failed"; output: string };

interface Journal {
  entries: { idx: number; tag: string }[];
}

export async function checkMigrations(opts: MigrationCheckOptions = {}): Promise<MigrationCheck> {
  const migrationsDir = opts.migrationsDir ?? MIGRATIONS_DIR;
  const schema = resolve(ROOT_DIR, opts.schema ?? String(config.schema));
  const journal = JSON.parse(readFileSync(join(migrationsDir, "meta/_journal.json"), "utf8")) as Journal;
  const missing = journal.entries.filter((e) => !existsSync(join(migrationsDir, "meta", snapshotFile(e.tag)))).map((e) => e.tag);
  if (missing.length > 0) return { ok: false, problem: "missing_snapshots", tags: missing };

  const work = mkdtempSync(join(tmpdir(), "chatd-migration-check-"));
  try {
    const out = join(work, "migrations");
    cpSync(migrationsDir, out, { recursive: true });
    const before = new Set(listFiles(out));
    // Relative --out: drizzle-kit prefixes "./" to it. Run in the temporary folder, which also has
    // no drizzle.config.ts for drizzle-kit to prefer over the flags.
    const args = ["generate", "--dialect", config.dialect, "--schema", schema, "--out", "migrations"];
    if (config.casing) args.push("--casing", config.casing);
    const run = await runNode([DRIZZLE_KIT, ...args], work);
    if (run.output.includes(PROMPT_REFUSED))
      return { ok: false, problem: "rename_prompt", changes: await namedChanges(schema, migrationsDir, journal) };
    if (run.code !== 0) return { ok: false, problem: "drizzle_kit_failed", output: run.output.slice(-4000) };
    const written = listFiles(out).filter((f) => !before.has(f) && f.endsWith(".sql"));
    if (written.length > 0) {
      const sql = written.map((f) => readFileSync(join(out, f), "utf8")).join("\n--> statement-breakpoint\n");
      return { ok: false, problem: "pending_sql", statements: statementHeads(sql) };
    }
    if (!run.output.includes(NOTHING_TO_DO)) return { ok: false, problem: "drizzle_kit_failed", output: run.output.slice(-4000) };
    return { ok: true, migrations: journal.entries.length };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One line per problem, for people. */
export function describeMigrationCheck(check: MigrationCheck): string[] {
  if (check.ok) return [];
  switch (check.problem) {
    case "missing_snapshots":
      return check.tags.map((t) => `migrations/meta/${snapshotFile(t)} is missing (journal entry ${t})`);
    case "pending_sql":
      return check.statements.map((s) => `drizzle-kit would write: ${s}`);
    case "rename_prompt":
      return [...check.changes, "drizzle-kit would ask whether these were renamed: run `npm run db:generate` and answer it"];
    case "drizzle_kit_failed":
      return [`drizzle-kit generate failed: ${check.output}`];
  }
}

/** The first line of each statement: `ALTER TABLE "chats" ADD COLUMN "x" jsonb`, `CREATE TABLE "y"`. */
export function statementHeads(sql: string): string[] {
  return sql
    .split("--> statement-breakpoint")
    .map((s) => (s.trim().split("\n")[0] ?? "").replace(/\s*\($/, "").replace(/;$/, ""))
    .filter((s) => s.length > 0)
    .map((s) => (s.length > 200 ? `${s.slice(0, 200)}...` : s));
}

// drizzle-kit names a migration's snapshot after the tag's number: 0007_subagents -> 0007_snapshot.json.
function snapshotFile(tag: string): string {
  return `${tag.split("_")[0]}_snapshot.json`;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" });
}

function runNode(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"], timeout: GENERATE_TIMEOUT_MS });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, output }));
  });
}

interface SnapshotTables {
  tables: Record<string, { columns: Record<string, unknown> }>;
}

/** Tables and columns only one side has: the candidates drizzle-kit asks about. */
async function namedChanges(schema: string, migrationsDir: string, journal: Journal): Promise<string[]> {
  const { generateDrizzleJson } = await import("drizzle-kit/api");
  const imports = (await import(schema)) as Record<string, unknown>;
  const current = generateDrizzleJson(imports, undefined, undefined, config.casing) as unknown as SnapshotTables;
  const lastTag = journal.entries.at(-1)?.tag ?? "";
  const latest = JSON.parse(readFileSync(join(migrationsDir, "meta", snapshotFile(lastTag)), "utf8")) as SnapshotTables;
  const changes: string[] = [];
  for (const [key, table] of Object.entries(current.tables)) {
    const old = latest.tables[key];
    if (!old) {
      changes.push(`table ${key} is in the schema, not in the latest snapshot`);
      continue;
    }
    for (const c of Object.keys(table.columns))
      if (!(c in old.columns)) changes.push(`column ${key}.${c} is in the schema, not in the latest snapshot`);
    for (const c of Object.keys(old.columns))
      if (!(c in table.columns)) changes.push(`column ${key}.${c} is in the latest snapshot, not in the schema`);
  }
  for (const key of Object.keys(latest.tables))
    if (!current.tables[key]) changes.push(`table ${key} is in the latest snapshot, not in the schema`);
  return changes;
}
