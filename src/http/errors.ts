/**
 * The one mapping from errors to HTTP responses. Every error body has the shape of docs/api.md "Errors":
 * `{message, detail?, code, validations?}`. Unexpected errors are logged and answered 500
 * without internals.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ErrorValue, errorValue } from "../chat-commands/error-value";
import type { ChatStoreErrorCode } from "../chats/errors";
import { errorText, logger } from "../log/log";

export interface ErrorBody {
  message: string;
  detail?: string;
  code: string;
  validations?: { field: string; detail: string }[];
}

/**
 * The 409 `invalid_state` message, word for word what Coder's web UI compares a failed chat
 * mutation's message with before it offers to reconcile the chat (its answers carry no code).
 */
export const CHAT_INVALID_STATE_MESSAGE = "Chat is in an invalid state.";

/** An error that already knows its HTTP answer. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly detail?: string,
    readonly validations?: { field: string; detail: string }[],
    /** Answer with `Retry-After`: the client may try again after this many seconds. */
    readonly retry?: { retryAfterSeconds: number },
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
  return apiErrorOf(errorValue(err));
}

/** The code of a 503 the client should retry after `Retry-After` seconds. */
export const DATABASE_UNAVAILABLE = "database_unavailable";
export const RETRY_AFTER_SECONDS = "1";

export function onError(err: Error, c: Context): Response {
  const apiError = toApiError(err);
  if (apiError.code === DATABASE_UNAVAILABLE) {
    logger.warn("request_database_unavailable", { path: c.req.path, method: c.req.method, error: errorText(err) });
    c.header("Retry-After", RETRY_AFTER_SECONDS);
  } else if (apiError.retry) {
    c.header("Retry-After", String(apiError.retry.retryAfterSeconds));
  } else if (apiError.status >= 500) {
    logger.error("request_failed", { path: c.req.path, method: c.req.method, error: errorText(err), stack: err.stack });
  }
  return c.json(errorBody(apiError), apiError.status);
}

export function notFound(c: Context): Response {
  return c.json(errorBody(new ApiError(404, "not_found", "Resource not found.")), 404);
}

/**
 * The one mapping from a domain error to its answer: the Worker's own errors, and a chat command's
 * error as the ChatObject returned it (src/routes/chat-object-calls.ts).
 */
export function apiErrorOf(value: ErrorValue): ApiError {
  switch (value.name) {
    // The state machine (src/chatstate/errors.ts) and the chat store (src/chats/errors.ts).
    case "TransitionNotAllowedError":
      return new ApiError(
        409,
        value.code,
        "The chat's current state does not allow this request.",
        `${value.transition} is not allowed from ${value.from}`,
      );
    case "InvalidStateError":
      // The exact message Coder's web UI matches to offer reconciling the chat.
      return new ApiError(409, value.code, CHAT_INVALID_STATE_MESSAGE, value.message);
    case "ChatNotFoundError":
      return new ApiError(404, "not_found", "Resource not found.", "Chat not found.");
    case "ChatStateError":
      return new ApiError(404, value.code, "Resource not found.", value.message);
    case "FileAttachmentError":
      return invalid("content", value.message);
    case "ChatStoreError":
      return chatStoreError(value.code, value.message);
    // Accounts, providers, model configs and projects (src/accounts, src/model-configs, src/projects).
    case "AuthenticationError":
      return new ApiError(401, "unauthorized", "Unauthorized.", value.detail);
    case "InsufficientScopeError":
      return new ApiError(403, "insufficient_scope", "Forbidden.", `A token of scope ${value.scope} may not do this.`);
    case "AccountError":
      return new ApiError(409, value.code, value.message);
    case "BootstrapRefusedError":
      return new ApiError(403, value.reason === "off" ? "bootstrap_off" : "bootstrap_secret_invalid", "Forbidden.", value.message);
    case "SingleSignOnRefusedError":
      return new ApiError(403, "sso_refused", "Single sign-on was refused.", value.reason);
    case "SignInRefusedError":
      return new ApiError(401, "invalid_credentials", "The email or password is wrong.");
    case "TooManySignInAttemptsError":
      return new ApiError(429, "too_many_attempts", "Too many failed sign-ins.", `Try again in ${value.retryAfterSeconds} s.`, undefined, {
        retryAfterSeconds: value.retryAfterSeconds,
      });
    case "RateLimitedError":
      return new ApiError(
        429,
        "rate_limited",
        "Too many requests.",
        `The ${value.limit} limit was reached; try again in ${value.retryAfterSeconds} s.`,
        undefined,
        {
          retryAfterSeconds: value.retryAfterSeconds,
        },
      );
    case "QuotaExceededError":
      return new ApiError(403, "quota_exceeded", `The ${value.quota} quota (${value.limit}) is used up.`, value.message);
    case "OrganizationUnavailableError":
      return value.reason === "not_found"
        ? new ApiError(404, "not_found", "Resource not found.", "Organization not found.")
        : invalid("organization_id", "you belong to no organization");
    case "UnknownProviderError":
      return invalid("provider_id", value.message);
    case "ModelConfigUnavailableError":
    case "NoDefaultModelConfigError":
      // Either way the client's fix is the model_config_id it sends.
      return invalid("model_config_id", value.message);
    case "ProviderInUseError":
      return new ApiError(409, value.code, value.message);
    case "ProjectUnavailableError":
      return invalid("project_id", value.message);
    case "ChatProjectGone":
      return invalid("project_id", "the project no longer exists");
    case "McpServerUnavailableError":
      return invalid("mcp_server_ids", value.message);
    // Lifecycle hooks fail closed (docs/hooks.md): the submission writes nothing.
    case "HookDeniedError":
      return new ApiError(403, value.code, value.message, value.reason);
    case "HookFailureError":
      return new ApiError(502, value.code, "The lifecycle hook consumer did not give a usable answer.", value.message);
    case "ConfigError":
      // A misconfigured deployment: say which setting is wrong, there is nothing secret in it.
      return new ApiError(500, value.code, "The service is misconfigured.", value.problems.join("; "));
    case "DatabaseUnavailable":
      return new ApiError(503, DATABASE_UNAVAILABLE, "The database is unreachable; retry shortly.");
    case "UnexpectedError":
      return new ApiError(500, "internal", "An internal error occurred.");
  }
}

function chatStoreError(code: ChatStoreErrorCode, message: string): ApiError {
  switch (code) {
    case "nothing_to_compact":
    case "nothing_to_clear":
      return new ApiError(
        409,
        code,
        code === "nothing_to_compact" ? "There is nothing to compact." : "There is nothing to clear.",
        message,
      );
    case "queue_full":
      return new ApiError(429, code, "The chat's queue is full.", message);
    case "family_archived":
    case "parent_archived":
      return new ApiError(409, code, "The chat's family is archived.", message);
    case "tool_results_mismatch":
      return invalid("results", message);
    case "invalid_transition_input":
      return invalid("(body)", message);
  }
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
