import { z } from "@hono/zod-openapi";

/** The error body (docs/api.md "Errors"), for OpenAPI responses. */
export const ErrorSchema = z
  .object({
    message: z.string(),
    detail: z.string().optional(),
    code: z.string(),
    validations: z.array(z.object({ field: z.string(), detail: z.string() })).optional(),
  })
  .openapi("Error");
