/**
 * Turns a failed zod validation into the API's 400: `{code: "validation_failed", validations}`.
 * Used as the default hook of every OpenAPI router, so no handler sees unvalidated input.
 *
 * One rule holds for every route and every input (body, query, path): every string must be text
 * Postgres can store. It refuses the NUL character (U+0000) in text and jsonb, and a lone UTF-16
 * surrogate (which JSON can spell, `"\ud800"`) is not Unicode text at all. Such a value is refused
 * here, as a 400 naming the field, before anything is written.
 */
import type { Hook } from "@hono/zod-openapi";
import type { z } from "zod";
import { ApiError } from "./errors";

type Validation = { field: string; detail: string };

export function validationsOf(error: z.ZodError): Validation[] {
  return error.issues.map((issue) => ({ field: issue.path.map(String).join(".") || "(body)", detail: issue.message }));
}

export const NUL_DETAIL = "must not contain the NUL character (U+0000)";
export const SURROGATE_DETAIL = "must be well-formed Unicode (no lone surrogate code units)";
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why Postgres could not store `text`, or null when it can. */
function unstorable(text: string): string | null {
  if (text.includes("\u0000")) return NUL_DETAIL;
  if (LONE_SURROGATE.test(text)) return SURROGATE_DETAIL;
  return null;
}
/** Enough to show where the bad strings are without echoing a hostile body back. */
const MAX_TEXT_VALIDATIONS = 10;

/** The paths of every string (object keys included) in `value` that Postgres could not store. */
export function unstorableTextFields(value: unknown, path: string[] = [], found: Validation[] = []): Validation[] {
  if (found.length >= MAX_TEXT_VALIDATIONS) return found;
  if (typeof value === "string") {
    const detail = unstorable(value);
    if (detail) found.push({ field: path.join(".") || "(body)", detail });
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) unstorableTextFields(item, [...path, String(i)], found);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const detail = unstorable(key);
      if (detail) found.push({ field: [...path, JSON.stringify(key).slice(1, -1)].join("."), detail });
      unstorableTextFields(item, [...path, key], found);
    }
  }
  return found;
}

// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its schemas.
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (!result.success) {
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, validationsOf(result.error));
  }
  const text = unstorableTextFields(result.data);
  if (text.length > 0) throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, text);
};
