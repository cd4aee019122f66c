/**
 * Turns a failed zod validation into the API's 400: `{code: "validation_failed", validations}`.
 * Used as the default hook of every OpenAPI router, so no handler sees unvalidated input.
 *
 * One rule holds for every route and every input (body, query, path): no string may contain
 * U+0000. Postgres refuses the NUL character in text and jsonb, so such a value could never be
 * stored; it is refused here, as a 400 naming the field, before anything is written.
 */
import type { Hook } from "@hono/zod-openapi";
import type { z } from "zod";
import { ApiError } from "./errors";

type Validation = { field: string; detail: string };

export function validationsOf(error: z.ZodError): Validation[] {
  return error.issues.map((issue) => ({ field: issue.path.map(String).join(".") || "(body)", detail: issue.message }));
}

export const NUL_DETAIL = "must not contain the NUL character (U+0000)";
/** Enough to show where the NULs are without echoing a hostile body back. */
const MAX_NUL_VALIDATIONS = 10;

/** The paths of every string (object keys included) in `value` that contains U+0000. */
export function nulCharacterFields(value: unknown, path: string[] = [], found: Validation[] = []): Validation[] {
  if (found.length >= MAX_NUL_VALIDATIONS) return found;
  if (typeof value === "string") {
    if (value.includes("\u0000")) found.push({ field: path.join(".") || "(body)", detail: NUL_DETAIL });
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) nulCharacterFields(item, [...path, String(i)], found);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\u0000")) found.push({ field: [...path, key.replaceAll("\u0000", "\\u0000")].join("."), detail: NUL_DETAIL });
      nulCharacterFields(item, [...path, key], found);
    }
  }
  return found;
}

// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its schemas.
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (!result.success) {
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, validationsOf(result.error));
  }
  const nul = nulCharacterFields(result.data);
  if (nul.length > 0) throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, nul);
};
