/**
 * The tree's layering, checked: every folder of `src/` (and `durable-objects/`) has a place in
 * LAYERS, lowest first (a single file may have a place of its own), and a file may import only
 * from its own folder or a folder listed before it. Any import cycle between files fails too, there
 * and in CYCLE_CHECKED. `npm run lint` and a test in the suite run it, so
 * an import that climbs back up is caught when it is written, not when a reader trips on it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/** The folders, lowest first: each may import only itself and what comes before it. */
export const LAYERS: readonly string[] = [
  "src/seeded-random.ts",
  "src/next-task.ts",
  // The outbound request guard (docs/hardening.md): the config parses its allow-list.
  "src/outbound",
  "src/log",
  // Sealed secrets (docs/hardening.md): the key ring is part of the config, below all that stores one.
  "src/secrets",
  "src/config",
  "src/placement",
  "src/chatstate",
  "src/observability",
  "src/db",
  "src/wire",
  // Fair use (docs/fairness.md): rate limits, quotas and their errors, which commands, routes and tools raise.
  "src/limits",
  "src/accounts",
  "src/model-configs",
  "src/projects",
  "src/memory",
  "src/files",
  "src/mcp",
  "src/hooks",
  // Debug runs (docs/debug-runs.md): the capture of a model call, its redaction, its rows.
  "src/debug-runs",
  "src/chats",
  // The chat list watch's events and feed (docs/stream.md "The chat list watch"), without sockets.
  "src/watch",
  "src/llm",
  "src/part-buffer",
  "src/stream",
  "src/subagents",
  "src/tools",
  "src/chat-worker",
  "src/chat-commands",
  "src/http",
  // The subagent tools' host, which reaches the children's objects through their commands.
  "src/subagents/child-objects.ts",
  "durable-objects/chat-object",
  "durable-objects/chat-watch",
  "durable-objects",
  "src/routes",
  "src/cron",
  "src",
];

export interface ImportCheck {
  /** Imports from a folder listed after the importer's own. */
  climbs: { from: string; to: string }[];
  /** Files in no listed folder. */
  unplaced: string[];
  /** Strongly connected groups of files (each a cycle of imports). */
  cycles: string[][];
  files: number;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

function sourceFiles(root: string, dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    // A bench's own installed packages (scripts/bench/relay installs its pinned ones) are not ours.
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) sourceFiles(root, path, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function resolveImport(files: ReadonlySet<string>, from: string, specifier: string): string | undefined {
  const base = normalize(join(dirname(from), specifier));
  return [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((c) => files.has(c));
}

/** The folder of LAYERS a file belongs to: the longest listed prefix of its path. */
function layerOf(file: string): number {
  let best = -1;
  for (const [i, layer] of LAYERS.entries()) {
    const inside = layer === "src" ? dirname(file) === "src" : file === layer || file.startsWith(`${layer}/`);
    if (inside && (best === -1 || layer.length > LAYERS[best]!.length)) best = i;
  }
  return best;
}

export function importGraph(root: string, dirs: readonly string[] = ["src", "durable-objects"]): Map<string, Set<string>> {
  const list = dirs.flatMap((d) => sourceFiles(root, d));
  const files = new Set(list);
  const graph = new Map<string, Set<string>>();
  for (const file of list) {
    const targets = new Set<string>();
    for (const match of readFileSync(join(root, file), "utf8").matchAll(SPECIFIER)) {
      const target = resolveImport(files, file, match[1]!);
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file. */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        group.push(w);
        if (w === v) break;
      }
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/**
 * Folders outside the server's layering whose files must still import without a cycle: the client
 * SDK, the web app and the scripts (a cycle there is as hard to read as one in src/).
 */
export const CYCLE_CHECKED: readonly string[] = ["client/src", "web/src", "scripts"];

export function checkImports(
  root: string,
  dirs?: readonly string[],
  cycleOnly: readonly string[] = dirs ? [] : CYCLE_CHECKED,
): ImportCheck {
  const graph = importGraph(root, dirs);
  const cycles = cyclesOf(graph);
  for (const dir of cycleOnly) cycles.push(...cyclesOf(importGraph(root, [dir])));
  const climbs: ImportCheck["climbs"] = [];
  const unplaced: string[] = [];
  for (const [from, targets] of graph) {
    const own = layerOf(from);
    if (own === -1) {
      unplaced.push(from);
      continue;
    }
    for (const to of targets) {
      const theirs = layerOf(to);
      if (theirs > own && LAYERS[theirs] !== LAYERS[own]) climbs.push({ from, to });
    }
  }
  return { climbs, unplaced, cycles, files: graph.size };
}

/** The check's failures as lines a reader can act on (empty: all good). */
export function describeProblems(check: ImportCheck, root = "."): string[] {
  const rel = (f: string) => relative(".", join(root, f));
  return [
    ...check.climbs.map((c) => `${rel(c.from)} imports ${rel(c.to)}, a layer above it (scripts/lib/import-layers.ts, LAYERS)`),
    ...check.unplaced.map((f) => `${rel(f)} is in no folder of LAYERS (scripts/lib/import-layers.ts)`),
    ...check.cycles.map((c) => `import cycle: ${c.map(rel).join(" <-> ")}`),
  ];
}
