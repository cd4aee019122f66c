/**
 * The one mapping from errors to HTTP responses. Every error body has the shape of docs/api.md "Errors":
 * `{message, detail?, code, validations?}`. Unexpected errors are logged and answered 500
 * without internals.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ChatNotFoundError, ChatStateError, InvalidStateError, TransitionNotAllowedError } from "../chatstate/errors";
import { ConfigError } from "../config/env";
import { ChatStoreError } from "../db/errors";
import { FileAttachmentError } from "../db/files";
import { AccountError } from "../db/accounts/errors";
import {
  ModelConfigUnavailableError,
  NoDefaultModelConfigError,
  ProviderInUseError,
  UnknownProviderError,
} from "../db/model-configs/errors";
import { McpServerUnavailableError } from "../db/mcp/errors";
import { isDatabaseUnavailable } from "../db/pg-errors";
import { isChatProjectGone, ProjectUnavailableError } from "../db/projects/errors";
import { HookDeniedError, HookFailureError } from "../hooks/errors";
import { errorText, logger } from "../log";

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
  if (err instanceof HTTPException) return httpException(err);
  const domain = chatError(err) ?? accountAndModelConfigError(err) ?? hookError(err);
  if (domain) return domain;
  if (err instanceof ConfigError) {
    // A misconfigured deployment: say which setting is wrong, there is nothing secret in it.
    return new ApiError(500, err.code, "The service is misconfigured.", err.problems.join("; "));
  }
  if (isDatabaseUnavailable(err)) return new ApiError(503, DATABASE_UNAVAILABLE, "The database is unreachable; retry shortly.");
  return new ApiError(500, "internal", "An internal error occurred.");
}

/** The code of a 503 the client should retry after `Retry-After` seconds. */
export const DATABASE_UNAVAILABLE = "database_unavailable";
const RETRY_AFTER_SECONDS = "1";

export function onError(err: Error, c: Context): Response {
  const apiError = toApiError(err);
  if (apiError.code === DATABASE_UNAVAILABLE) {
    logger.warn("request_database_unavailable", { path: c.req.path, method: c.req.method, error: errorText(err) });
    c.header("Retry-After", RETRY_AFTER_SECONDS);
  } else if (apiError.status >= 500) {
    logger.error("request_failed", { path: c.req.path, method: c.req.method, error: errorText(err), stack: err.stack });
  }
  return c.json(errorBody(apiError), apiError.status);
}

export function notFound(c: Context): Response {
  return c.json(errorBody(new ApiError(404, "not_found", "Resource not found.")), 404);
}

/** Lifecycle hooks fail closed (docs/hooks.md): the submission writes nothing. */
function hookError(err: unknown): ApiError | undefined {
  if (err instanceof HookDeniedError) return new ApiError(403, err.code, err.message, err.reason);
  if (err instanceof HookFailureError)
    return new ApiError(502, err.code, "The lifecycle hook consumer did not give a usable answer.", err.message);
  return undefined;
}

/** Accounts, providers, model configs and projects (src/db/accounts, src/db/model-configs, src/db/projects). */
function accountAndModelConfigError(err: unknown): ApiError | undefined {
  if (err instanceof AccountError) return new ApiError(409, err.code, err.message);
  if (err instanceof UnknownProviderError) {
    return new ApiError(400, "validation_failed", "Request validation failed.", undefined, [{ field: "provider_id", detail: err.message }]);
  }
  if (err instanceof ModelConfigUnavailableError || err instanceof NoDefaultModelConfigError) {
    // Either way the client's fix is the model_config_id it sends.
    return new ApiError(400, "validation_failed", "Request validation failed.", undefined, [
      { field: "model_config_id", detail: err.message },
    ]);
  }
  if (err instanceof ProviderInUseError) return new ApiError(409, err.code, err.message);
  if (err instanceof ProjectUnavailableError) return invalid("project_id", err.message);
  if (isChatProjectGone(err)) return invalid("project_id", "the project no longer exists");
  if (err instanceof McpServerUnavailableError) return invalid("mcp_server_ids", err.message);
  return undefined;
}

/** The state machine (src/chatstate/errors.ts) and the chat store (src/db/errors.ts). */
function chatError(err: unknown): ApiError | undefined {
  if (err instanceof TransitionNotAllowedError) {
    return new ApiError(
      409,
      err.code,
      "The chat's current state does not allow this request.",
      `${err.transition} is not allowed from ${err.from}`,
    );
  }
  if (err instanceof InvalidStateError) return new ApiError(409, err.code, "The chat is in an invalid state.", err.message);
  if (err instanceof ChatNotFoundError) return new ApiError(404, "not_found", "Resource not found.", "Chat not found.");
  if (err instanceof ChatStateError) return new ApiError(404, err.code, "Resource not found.", err.message);
  if (err instanceof FileAttachmentError) return invalid("content", err.message);
  if (err instanceof ChatStoreError) {
    switch (err.code) {
      case "nothing_to_compact":
      case "nothing_to_clear":
        return new ApiError(
          409,
          err.code,
          err.code === "nothing_to_compact" ? "There is nothing to compact." : "There is nothing to clear.",
          err.message,
        );
      case "queue_full":
        return new ApiError(429, err.code, "The chat's queue is full.", err.message);
      case "family_archived":
      case "parent_archived":
        return new ApiError(409, err.code, "The chat's family is archived.", err.message);
      case "tool_results_mismatch":
        return invalid("results", err.message);
      case "invalid_transition_input":
        return invalid("(body)", err.message);
    }
  }
  return undefined;
}

function invalid(field: string, detail: string): ApiError {
  return new ApiError(400, "validation_failed", "Request validation failed.", undefined, [{ field, detail }]);
}

/** Hono's own rejections: a body that is not JSON is a validation failure like any other. */
function httpException(err: HTTPException): ApiError {
  if (err.status === 400) return invalid("(body)", err.message || "malformed request body");
  if (err.status === 415) return new ApiError(415, "unsupported_media_type", "The request body must be application/json.", err.message);
  return new ApiError(err.status as ContentfulStatusCode, "http_error", err.message);
}
