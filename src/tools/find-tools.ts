/**
 * MCP tool search (docs/mcp.md#tool-search): with it on, a step is offered `find_tools` instead of
 * every MCP tool's schema. The model searches the catalog by keywords; the tools a search returned
 * are offered, schemas and all, from the next step on, for as long as the result is in the prompt
 * (a compaction that drops it drops them too: the model searches again).
 *
 * Ranking is plain keyword matching over names and descriptions: deterministic, no index to keep,
 * and cheap enough for the catalogs a chat can connect (16 servers of at most 20 pages of tools).
 */
import type { ChatMessagePart } from "../db/schema/chats";
import { type HistoryRow, promptRows } from "../llm/active-history";
import { defineLocalTool, type LocalTool } from "../llm/tools";

export const FIND_TOOLS_NAME = "find_tools";
/** Tools one search returns when the model asks for no number, and the most it may ask for. */
export const FIND_TOOLS_DEFAULT_LIMIT = 8;
export const FIND_TOOLS_MAX_LIMIT = 20;
/** The longest query read; the rest is ignored. */
const MAX_QUERY_CHARS = 500;

/** One searchable tool: the name it is offered under and its description. */
export interface CatalogEntry {
  name: string;
  description: string;
}

export interface FoundTool {
  name: string;
  description: string;
}

/** The words of a text, lower case, split at anything that is not a letter or a digit. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * The catalog's tools that match `query`, best first: a query word in the tool's name counts 3, in
 * its description 1 (a word matches a word it starts, so "file" finds "files"). Ties keep catalog
 * order; tools matching nothing are left out.
 */
export function rankTools(query: string, catalog: readonly CatalogEntry[], limit: number): CatalogEntry[] {
  const terms = [...new Set(words(query.slice(0, MAX_QUERY_CHARS)))];
  if (terms.length === 0) return [];
  const scored = catalog.map((entry, index) => {
    const name = words(entry.name);
    const description = words(entry.description);
    let score = 0;
    for (const term of terms) {
      if (name.some((w) => w.startsWith(term))) score += 3;
      if (description.some((w) => w.startsWith(term))) score += 1;
    }
    return { entry, index, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((s) => s.entry);
}

/** The first paragraph of a description, at most 300 characters: enough to choose, not the whole manual. */
function summary(description: string): string {
  const first = description.split(/\n\s*\n/)[0]?.trim() ?? "";
  return first.length <= 300 ? first : `${first.slice(0, 299)}…`;
}

/** `find_tools` over `catalog`; `servers` names the servers it comes from, for the description. */
export function findToolsTool(catalog: readonly CatalogEntry[], servers: readonly string[]): LocalTool {
  return defineLocalTool<unknown>({
    name: FIND_TOOLS_NAME,
    description:
      `Search the ${catalog.length} tools of this chat's MCP servers (${servers.join(", ")}) by keywords. ` +
      "Their schemas are not listed up front: the tools a search returns can be called from your next step on. " +
      "Search again with other words when nothing fits.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Keywords: what the tool should do, or words of its name." },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: FIND_TOOLS_MAX_LIMIT,
          description: `At most this many tools (default ${FIND_TOOLS_DEFAULT_LIMIT}).`,
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    readOnly: true,
    async execute(args) {
      const { query, limit } = (args ?? {}) as { query?: unknown; limit?: unknown };
      if (typeof query !== "string" || query.trim() === "") throw new Error("invalid arguments: query: a non-empty string is required");
      const n =
        typeof limit === "number" && Number.isInteger(limit)
          ? Math.min(Math.max(limit, 1), FIND_TOOLS_MAX_LIMIT)
          : FIND_TOOLS_DEFAULT_LIMIT;
      const tools: FoundTool[] = rankTools(query, catalog, n).map((t) => ({ name: t.name, description: summary(t.description) }));
      return {
        tools,
        note:
          tools.length === 0
            ? "No tool matched; try other words."
            : "These tools can be called from your next step on, with the schemas they are offered with.",
      };
    },
  });
}

function foundIn(part: ChatMessagePart): string[] {
  if (part.type !== "tool-result" || part.tool_name !== FIND_TOOLS_NAME || part.is_error) return [];
  const tools = (part.result as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) => (typeof (t as FoundTool)?.name === "string" ? [(t as FoundTool).name] : []));
}

/** The names find_tools returned in what the model's prompt holds (rows after the newest compaction). */
export function foundToolNames(history: readonly HistoryRow[]): Set<string> {
  const found = new Set<string>();
  for (const row of promptRows(history)) {
    if (row.role !== "tool") continue;
    for (const part of row.content) for (const name of foundIn(part)) found.add(name);
  }
  return found;
}
