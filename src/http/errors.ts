/**
 * The one mapping from errors to HTTP responses. Every error body has the shape of api.md:
 * `{message, detail?, code, validations?}`. Unexpected errors are logged and answered 500
 * without internals.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ConfigError } from "../config/env";
import { logger } from "../log";

export interface ErrorBody {
  message: string;
  detail?: string;
  code: string;
  validations?: { field: string; detail: string }[];
}

/** An error that already knows its HTTP answer. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly detail?: string,
    readonly validations?: { field: string; detail: string }[],
  ) {
    super(message);
  }
}

export function errorBody(err: ApiError): ErrorBody {
  return {
    message: err.message,
    code: err.code,
    ...(err.detail === undefined ? {} : { detail: err.detail }),
    ...(err.validations === undefined ? {} : { validations: err.validations }),
  };
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) return new ApiError(err.status as ContentfulStatusCode, "http_error", err.message);
  if (err instanceof ConfigError) {
    // A misconfigured deployment: say which setting is wrong, there is nothing secret in it.
    return new ApiError(500, err.code, "The service is misconfigured.", err.problems.join("; "));
  }
  return new ApiError(500, "internal", "An internal error occurred.");
}

export function onError(err: Error, c: Context): Response {
  const apiError = toApiError(err);
  if (apiError.status >= 500) {
    logger.error("request_failed", { path: c.req.path, method: c.req.method, error: err.message, stack: err.stack });
  }
  return c.json(errorBody(apiError), apiError.status);
}

export function notFound(c: Context): Response {
  return c.json(errorBody(new ApiError(404, "not_found", "Resource not found.")), 404);
}
