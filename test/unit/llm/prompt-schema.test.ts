// The AI SDK's message schema has no unresolved lazy schema once resolvePromptSchema has run, so
// zod's cycle walk can cache its answer (src/llm/prompt-schema.ts). The walk below reads zod's
// schema definitions (`_zod.def`): the same structure zod's own walk follows. This project's files
// share modules (isolate: false), so the SDK's schema may arrive here already resolved.
import { modelMessageSchema } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RESOLVING_MESSAGE, resolvePromptSchema } from "../../../src/llm/prompt-schema";

interface Def {
  type: string;
  shape?: Record<string, Node>;
  element?: Node;
  options?: Node[];
  keyType?: Node;
  valueType?: Node;
  innerType?: Node;
  in?: Node;
  out?: Node;
  left?: Node;
  right?: Node;
  items?: Node[];
  catchall?: Node;
  _cachedInner?: Node;
}
type Node = { _zod: { def: Def } };

/** Paths of the lazy schemas under `root` that no parse has resolved yet. */
function unresolvedLazies(root: Node): string[] {
  const seen = new Set<Node>();
  const found: string[] = [];
  const walk = (node: Node | undefined, path: string): void => {
    if (!node?._zod || seen.has(node)) return;
    seen.add(node);
    const def = node._zod.def;
    if (def.type === "lazy") {
      if (def._cachedInner === undefined) found.push(path);
      else walk(def._cachedInner, `${path}()`);
      return;
    }
    for (const [key, child] of Object.entries(def.shape ?? {})) walk(child, `${path}.${key}`);
    for (const [i, child] of [...(def.options ?? []), ...(def.items ?? [])].entries()) walk(child, `${path}[${i}]`);
    for (const key of ["element", "keyType", "valueType", "innerType", "in", "out", "left", "right", "catchall"] as const) {
      walk(def[key] as Node | undefined, `${path}.${key}`);
    }
  };
  walk(root, "message");
  return found;
}

describe("resolvePromptSchema", () => {
  // The walk caches only what a parse has resolved: a lazy a message never reaches stays open.
  it("relies on a parse that reaches a lazy schema to resolve it (zod's behaviour, on a schema of its own)", () => {
    const json: z.ZodType = z.lazy(() => z.union([z.string(), z.array(json)]));
    const message = z.object({ role: z.string(), providerOptions: z.record(z.string(), json).optional() });
    expect(message.safeParse({ role: "user" }).success).toBe(true);
    expect(unresolvedLazies(message as unknown as Node)).toEqual(["message.providerOptions.innerType.valueType"]);
    expect(message.safeParse({ role: "user", providerOptions: { chatd: ["x"] } }).success).toBe(true);
    expect(unresolvedLazies(message as unknown as Node)).toEqual([]);
  });

  // Other files of this project may have resolved it already (they share the module); what must
  // hold is that none is left after resolvePromptSchema.
  it("leaves no unresolved lazy schema under the AI SDK's message schema", () => {
    resolvePromptSchema();
    expect(unresolvedLazies(modelMessageSchema as unknown as Node)).toEqual([]);
  });

  it("resolves them with a message the SDK accepts", () => {
    expect(modelMessageSchema.safeParse(RESOLVING_MESSAGE).success).toBe(true);
  });
});
