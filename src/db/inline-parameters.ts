/**
 * A parameterized statement rewritten with its parameters as literals, so that it can share one
 * simple-protocol query (and one round trip) with the BEGIN before it (transaction.ts).
 *
 * Only values whose literal needs no escaping are written in: null, a boolean, a safe integer, a
 * word of letters, digits and `_ . : -` (ids, UUIDs, statuses, "5000ms"), and an array of such
 * words. They become untyped quoted literals ('5', 'true', '{a,b}'), which Postgres types from
 * their context as it types an untyped parameter. Anything else (free text, dates, JSON) answers
 * `undefined` and the statement keeps its parameters. `$n` is replaced outside quoted strings
 * only; a statement with dollar quoting or quoted identifiers is left alone, as is one naming a
 * parameter it was not given.
 */

const WORD = /^[A-Za-z0-9_.:-]{1,128}$/;

export function inlineParameters(text: string, values: readonly unknown[]): string | undefined {
  const literals: string[] = [];
  for (const value of values) {
    const literal = literalOf(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  if (text.includes("$$") || text.includes('"')) return undefined;
  let out = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") quoted = !quoted;
    if (c !== "$" || quoted) {
      out += c;
      continue;
    }
    const digits = /^\d+/.exec(text.slice(i + 1))?.[0];
    const literal = digits === undefined ? undefined : literals[Number(digits) - 1];
    if (literal === undefined) return undefined;
    out += literal;
    i += (digits as string).length;
  }
  return quoted ? undefined : out;
}

function literalOf(value: unknown): string | undefined {
  if (value === null) return "NULL";
  if (typeof value === "boolean" || (typeof value === "number" && Number.isSafeInteger(value))) return `'${value}'`;
  if (isWord(value)) return `'${value}'`;
  // An array literal's bare NULL element is a null, not the word.
  if (Array.isArray(value) && value.every((v) => isWord(v) && v.toLowerCase() !== "null")) return `'{${value.join(",")}}'`;
  return undefined;
}

const isWord = (value: unknown): value is string => typeof value === "string" && WORD.test(value);
