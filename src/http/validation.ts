/**
 * Turns a failed zod validation into the API's 400: `{code: "validation_failed", validations}`.
 * Used as the default hook of every OpenAPI router, so no handler sees unvalidated input.
 */
import type { Hook } from "@hono/zod-openapi";
import type { z } from "zod";
import { ApiError } from "./errors";

export function validationsOf(error: z.ZodError): { field: string; detail: string }[] {
  return error.issues.map((issue) => ({ field: issue.path.map(String).join(".") || "(body)", detail: issue.message }));
}

// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its schemas.
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (!result.success) {
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, validationsOf(result.error));
  }
};
