/**
 * A generated tool catalog for the test MCP server's `/catalog/<n>/mcp` (scripts/test-mcp/server.ts):
 * `n` tools with realistic names, descriptions and input schemas, the size a large MCP deployment
 * lists. The MCP tool-search bench and tests use it (docs/mcp.md#tool-search). Deterministic: tool i
 * is always the same.
 */
const AREAS = ["issues", "files", "calendar", "billing", "deploys", "metrics", "users", "tickets", "wiki", "builds"] as const;
const VERBS = ["list", "get", "create", "update", "delete", "search", "archive", "export", "assign", "comment"] as const;
const READS = new Set(["list", "get", "search", "export"]);

export interface CatalogTool {
  name: string;
  description: string;
  /** Properties of the input schema, as JSON Schema. */
  properties: Record<string, { type: string; description: string }>;
  required: string[];
  readOnly: boolean;
}

export function catalogTool(i: number): CatalogTool {
  const area = AREAS[i % AREAS.length]!;
  const verb = VERBS[Math.floor(i / AREAS.length) % VERBS.length]!;
  const round = Math.floor(i / (AREAS.length * VERBS.length));
  const name = `${verb}_${area}${round === 0 ? "" : `_v${round + 1}`}`;
  return {
    name,
    description:
      `${verb[0]!.toUpperCase()}${verb.slice(1)} ${area} in the team's ${area} service. ` +
      `Use it when the user asks to ${verb} ${area}; it answers JSON with the ${area} affected, their ids and a status. ` +
      "Pagination: pass the cursor of the previous answer to read the next page.",
    properties: {
      id: { type: "string", description: `The ${area} id, as returned by list_${area}.` },
      query: { type: "string", description: `Free text matched against the ${area}' titles and bodies.` },
      limit: { type: "integer", description: "At most this many results (1-100, default 20)." },
      cursor: { type: "string", description: "The cursor of the previous page, if any." },
      fields: { type: "string", description: "Comma-separated fields to return; all when absent." },
    },
    required: verb === "list" || verb === "search" ? [] : ["id"],
    readOnly: READS.has(verb),
  };
}

export function catalog(n: number): CatalogTool[] {
  return Array.from({ length: n }, (_, i) => catalogTool(i));
}
