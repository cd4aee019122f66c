/**
 * The names MCP tools are offered under: `<server>__<tool>`, so two servers may both have a
 * `search` tool and the model (and the person reading the history) sees which server a call goes
 * to. Providers accept tool names of 1-64 characters from [A-Za-z0-9_-] (the strictest of the
 * OpenAI and Anthropic rules), so every other character becomes `_`, and a name that is still too
 * long is cut and given a short hash of the full name, keeping distinct tools distinct.
 */

export const MAX_TOOL_NAME_LENGTH = 64;
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const SEPARATOR = "__";

function sanitize(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return cleaned.length > 0 ? cleaned : "_";
}

/** FNV-1a, 32 bits, as 7 base-36 digits: short, stable, good enough to tell names apart. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(7, "0");
}

/** The offered name of `tool` on `server`, always matching TOOL_NAME_PATTERN. */
export function namespacedToolName(server: string, tool: string): string {
  const name = `${sanitize(server)}${SEPARATOR}${sanitize(tool)}`;
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const hash = shortHash(`${server}\u0000${tool}`);
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - hash.length - 1)}_${hash}`;
}

/**
 * Names for a turn's tools, in order: the namespaced name, or (when sanitizing made two names
 * equal, say `a.b` and `a_b`) the same name with `_2`, `_3`... so each call reaches one tool.
 * `taken` holds names already used by other tool families, which MCP tools never shadow.
 */
export function assignToolNames(tools: readonly { server: string; tool: string }[], taken: ReadonlySet<string> = new Set()): string[] {
  const used = new Set(taken);
  return tools.map(({ server, tool }) => {
    const base = namespacedToolName(server, tool);
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
    }
    used.add(name);
    return name;
  });
}
