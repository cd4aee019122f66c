/**
 * A parameterized statement rewritten with its parameters as literals, so that it can share one
 * simple-protocol query (and one round trip) with the BEGIN before it or the COMMIT after it
 * (transaction.ts).
 *
 * Every literal is an untyped quoted string ('5', 'true', '{a,b}', E'it''s'), which Postgres types
 * from its context exactly as it types an untyped parameter (the driver sends every parameter
 * untyped, as text). Free text is written as an escape string constant with every backslash and
 * quote doubled: it reads the same whatever `standard_conforming_strings` says, and nothing in it
 * can end the literal. What the driver would send other than as plain text answers `undefined`
 * and the statement keeps its parameters: objects (JSON goes through pgJson as text), buffers, a
 * string holding NUL (the protocol ends a query at NUL), a non-finite number, an invalid date, an
 * array holding anything but words. Dates are written as ISO 8601 in UTC (every timestamp column
 * is timestamptz). `$n` is replaced outside quoted strings only; a statement with dollar quoting,
 * quoted identifiers or a comment (`--`, `/*`) is left alone, as is one naming a parameter it was
 * not given.
 */

const WORD = /^[A-Za-z0-9_.:-]{1,128}$/;

export function inlineParameters(text: string, values: readonly unknown[]): string | undefined {
  const literals: string[] = [];
  for (const value of values) {
    const literal = literalOf(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  // A comment would swallow what follows it to the end of the line (or the `*/`), parameters
  // included: a statement with one keeps its parameters.
  if (text.includes("$$") || text.includes('"') || text.includes("--") || text.includes("/*")) return undefined;
  // Slices between the placeholders, joined once: a character at a time, a commit write's
  // several kilobytes of SQL made a string node per character.
  const parts: string[] = [];
  let from = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) quoted = !quoted;
    if (c !== DOLLAR || quoted) continue;
    let end = i + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    const literal = end === i + 1 ? undefined : literals[Number(text.slice(i + 1, end)) - 1];
    if (literal === undefined) return undefined;
    parts.push(text.slice(from, i), literal);
    from = end;
    i = end - 1;
  }
  if (quoted) return undefined;
  parts.push(text.slice(from));
  return parts.join("");
}

const QUOTE = "'".charCodeAt(0);
const DOLLAR = "$".charCodeAt(0);
const isDigit = (code: number) => code >= 48 && code <= 57;

function literalOf(value: unknown): string | undefined {
  if (value === null) return "NULL";
  if (typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) return `'${value}'`;
  if (isWord(value)) return `'${value}'`;
  if (typeof value === "string") return value.includes("\u0000") ? undefined : `E'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : `'${value.toISOString()}'`;
  // An array literal's bare NULL element is a null, not the word.
  if (Array.isArray(value) && value.every((v) => isWord(v) && v.toLowerCase() !== "null")) return `'{${value.join(",")}}'`;
  return undefined;
}

const isWord = (value: unknown): value is string => typeof value === "string" && WORD.test(value);
