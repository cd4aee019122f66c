/**
 * Every bench's command line: node:util's parseArgs over its own flags plus `--help`, which prints
 * the bench's usage and exits 0. A flag it does not know, or a value its `read` refuses (a
 * UsageError), prints the message and the usage and exits 2, before anything is started.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
}

export type BenchFlags = NonNullable<ParseArgsConfig["options"]>;

/** What parseArgs reads for `flags`. */
export type BenchFlagValues<T extends BenchFlags> = ReturnType<typeof parseArgs<{ args: string[]; options: T }>>["values"];

/** The flags of every bench that runs in a session (scripts/bench/common/session.ts, runBench). */
export const SESSION_FLAGS = {
  json: { type: "string" },
  worktree: { type: "boolean", default: false },
  keep: { type: "boolean", default: false },
} as const satisfies BenchFlags;

const HELP_FLAG = { help: { type: "boolean", default: false } } as const satisfies BenchFlags;

/** A whole-number option in [min, max]; a UsageError naming the option otherwise. */
export function wholeNumberOption(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a whole number in [${min}, ${max}], got "${raw}"`);
  return n;
}

/** The bench's options, as `read` makes them from the parsed flags. */
export function parseBenchArgs<const T extends BenchFlags, R>(
  usage: string,
  flags: T,
  read: (values: BenchFlagValues<T>) => R,
  argv: string[] = process.argv.slice(2),
): R {
  try {
    const { values } = parseArgs<{ args: string[]; options: T & typeof HELP_FLAG }>({ args: argv, options: { ...flags, ...HELP_FLAG } });
    if ((values as { help?: boolean }).help) {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    return read(values as BenchFlagValues<T>);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${usage}\n`);
    process.exit(2);
  }
}
