/**
 * `POST /chats/files?organization=&name=`: upload bytes (to R2), answer the file id to put in a
 * message's `{type: "file", file_id}` part. `GET /chats/files/{file}`: the bytes, to their owner.
 * A file joins a chat when a message referencing it is committed (src/files/files.ts).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { downloadHeaders } from "../files/download-headers";
import { getFile, insertFile } from "../files/files";
import { requireCaller } from "../http/auth";
import { limitBody } from "../http/body-limit";
import { ApiError } from "../http/errors";
import { requireOrganization } from "../http/org-access";
import { requestDb } from "../http/request-db";
import { configFromEnv } from "../config/env";
import { assertUploadQuota } from "../limits/quotas";
import { rateLimitsOf } from "../limits/rate-limits";
import { createRouter, errorResponses, jsonContent } from "../http/router";
import { FileParams, UploadedFileSchema, UploadFileQuery } from "./file-schemas";

/** At most 10 MiB per upload (docs/api.md "Files"). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

export const files = createRouter();
files.use(requestDb, requireCaller);

const upload = createRoute({
  method: "post",
  path: "/",
  summary: "Upload a file (raw body, its Content-Type, at most 10 MiB)",
  middleware: [limitBody(MAX_FILE_BYTES)],
  request: {
    query: UploadFileQuery,
    body: { required: true, content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
  },
  responses: { 201: jsonContent(UploadedFileSchema, "Stored"), ...errorResponses(400, 401, 403, 404, 413, 429) },
});

files.openapi(upload, async (c) => {
  const { organization, name } = c.req.valid("query");
  await requireOrganization(c, organization, "member");
  await rateLimitsOf(c.env).upload(c.var.caller);
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!MEDIA_TYPE.test(mediaType)) {
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, [
      { field: "content-type", detail: "a media type such as image/png is required" },
    ]);
  }
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength === 0)
    throw new ApiError(400, "validation_failed", "Request validation failed.", undefined, [
      { field: "(body)", detail: "the file is empty" },
    ]);
  const config = configFromEnv(c.env);
  await assertUploadQuota(
    c.var.db.$client,
    { ownerId: c.var.caller.userId, organizationId: organization, adding: bytes.byteLength },
    { perUser: config.CHAT_MAX_UPLOAD_BYTES_PER_USER, perOrganization: config.CHAT_MAX_UPLOAD_BYTES_PER_ORGANIZATION },
  );
  const id = crypto.randomUUID();
  const storageKey = `files/${organization}/${id}`;
  // Bytes first: a row never points at an object that is not there; an orphaned object is harmless.
  await c.env.FILES.put(storageKey, bytes, { httpMetadata: { contentType: mediaType } });
  await insertFile(c.var.db.$client, {
    id,
    organizationId: organization,
    ownerId: c.var.caller.userId,
    name: name ?? id,
    mediaType,
    sizeBytes: bytes.byteLength,
    storageKey,
  });
  return c.json({ id }, 201);
});

const download = createRoute({
  method: "get",
  path: "/{file}",
  summary: "Download a file (its owner only; evicted files are gone; only inert types are inline)",
  request: { params: FileParams },
  responses: {
    200: { description: "The bytes, with their Content-Type; an attachment unless an image or plain text (docs/hardening.md)" },
    ...errorResponses(400, 401, 404),
  },
});

files.openapi(download, async (c) => {
  const { file: fileId } = c.req.valid("param");
  const notFound = new ApiError(404, "not_found", "Resource not found.", "File not found.");
  const file = await getFile(c.var.db.$client, fileId);
  if (!file || file.ownerId !== c.var.caller.userId) throw notFound;
  const object = await c.env.FILES.get(file.storageKey);
  if (!object) throw notFound;
  return new Response(object.body, { headers: downloadHeaders(file) });
});
