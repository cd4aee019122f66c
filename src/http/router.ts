/**
 * Every router is an OpenAPIHono with the same validation hook, so each route's zod schemas are
 * both its validator and its OpenAPI description.
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { ErrorSchema } from "./error-schema";
import { validationHook } from "./validation";

export { ErrorSchema };

export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

/** OpenAPI response entries for the errors most routes can answer. */
export function errorResponses(...statuses: (400 | 401 | 403 | 404 | 409 | 413 | 429 | 502)[]) {
  const descriptions: Record<number, string> = {
    400: "Validation failed",
    401: "Missing, invalid or expired token",
    403: "Not allowed for this caller",
    404: "Not found (or not visible to the caller)",
    409: "Not allowed in the current state",
    413: "Body too large",
    429: "Too many",
    502: "The lifecycle hook consumer did not give a usable answer (docs/hooks.md)",
  };
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: descriptions[status] ?? "Error", content: { "application/json": { schema: ErrorSchema } } },
    ]),
  );
}

/** An OpenAPI response entry with a JSON body. */
export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** An OpenAPI request body entry: required JSON. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
