/**
 * The file wire shapes of api.md ("Files") as zod schemas: the routes validate with them, the
 * OpenAPI document and the client SDK's types come from them.
 */
import { z } from "@hono/zod-openapi";

export const UploadFileQuery = z.object({ organization: z.uuid(), name: z.string().trim().min(1).max(255).optional() });
export const FileParams = z.object({ file: z.uuid() });
export const UploadedFileSchema = z.object({ id: z.uuid() }).openapi("UploadedFile");
