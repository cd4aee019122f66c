/**
 * A chat command's error crosses the RPC boundary as a plain value (structured clone keeps no
 * class) and the Worker answers it as it would answer the error itself; the object logs exactly
 * the ones answered 5xx.
 */
import { describe, expect, it } from "vitest";
import {
  ChatNotFoundError,
  InvalidStateError,
  MessageNotFoundError,
  QueuedMessageNotFoundError,
  TransitionNotAllowedError,
} from "../../../src/chatstate/errors";
import { errorValue, isServiceFault } from "../../../src/chat-commands/error-value";
import { ConfigError } from "../../../src/config/env";
import { AuthenticationError } from "../../../src/accounts/authentication";
import { AlreadyExistsError } from "../../../src/accounts/errors";
import { NothingToCompactError, QueueFullError, ToolResultsMismatchError } from "../../../src/chats/errors";
import { FileAttachmentError } from "../../../src/files/files";
import { McpServerUnavailableError } from "../../../src/mcp/errors";
import { ModelConfigUnavailableError, NoDefaultModelConfigError, UnknownProviderError } from "../../../src/model-configs/errors";
import { ProjectUnavailableError } from "../../../src/projects/errors";
import { HookDeniedError, HookFailureError } from "../../../src/hooks/errors";
import { apiErrorOf, errorBody, toApiError } from "../../../src/http/errors";

const pgError = (fields: Record<string, string>) => Object.assign(new Error("x"), fields);

const errors: [string, unknown][] = [
  ["transition not allowed", new TransitionNotAllowedError("SendMessage", "XW")],
  ["invalid state", new InvalidStateError({ chatId: "c", status: "running", archived: true, queueLength: 0 })],
  ["chat not found", new ChatNotFoundError("c")],
  ["queued message not found", new QueuedMessageNotFoundError("c", 7)],
  ["message not found", new MessageNotFoundError("c", 8)],
  ["file attachment", new FileAttachmentError(["f"], "missing")],
  ["nothing to compact", new NothingToCompactError("c")],
  ["queue full", new QueueFullError("c", 3)],
  ["tool results mismatch", new ToolResultsMismatchError({ missing: ["a"], unexpected: [], duplicate: [] })],
  ["authentication", new AuthenticationError("The session token has expired.")],
  ["already exists", new AlreadyExistsError("user", "email")],
  ["unknown provider", new UnknownProviderError("p")],
  ["model config unavailable", new ModelConfigUnavailableError("m", "disabled")],
  ["no default model config", new NoDefaultModelConfigError("o", "not_found")],
  ["project unavailable", new ProjectUnavailableError("p")],
  ["project gone", pgError({ code: "23503", constraint: "chats_project_id_organization_id_projects_fk" })],
  ["mcp server unavailable", new McpServerUnavailableError(["s"])],
  ["hook denied", new HookDeniedError("policy")],
  ["hook failure", new HookFailureError("hook_unavailable", "user_prompt_submit", "refused")],
  ["config", new ConfigError(["DATABASE_URL is required"])],
  ["database unavailable", pgError({ code: "57P01" })],
  ["a bug", new TypeError("boom")],
];

describe("errors as values", () => {
  it.each(errors)("%s: answered the same after crossing the boundary", (_label, err) => {
    const crossed = apiErrorOf(structuredClone(errorValue(err)));
    const direct = toApiError(err);
    expect(crossed.status).toBe(direct.status);
    expect(errorBody(crossed)).toEqual(errorBody(direct));
  });

  it.each(errors)("%s: logged by the object exactly when answered 5xx", (_label, err) => {
    expect(isServiceFault(errorValue(err))).toBe(toApiError(err).status >= 500);
  });

  it("keeps each answer", () => {
    expect(errorBody(toApiError(new TransitionNotAllowedError("SendMessage", "XW")))).toEqual({
      message: "The chat's current state does not allow this request.",
      code: "transition_not_allowed",
      detail: "SendMessage is not allowed from XW",
    });
    expect(errorBody(toApiError(new ChatNotFoundError("c")))).toEqual({
      message: "Resource not found.",
      code: "not_found",
      detail: "Chat not found.",
    });
    // Coder's web UI offers reconciling only on a 409 with exactly this message.
    expect(toApiError(new InvalidStateError({ chatId: "c", status: "running", archived: true, queueLength: 0 }))).toMatchObject({
      status: 409,
      code: "invalid_state",
      message: "Chat is in an invalid state.",
    });
    expect(toApiError(new QueueFullError("c", 3))).toMatchObject({ status: 429, code: "queue_full" });
    expect(errorBody(toApiError(new AuthenticationError("The user is suspended.")))).toEqual({
      message: "Unauthorized.",
      code: "unauthorized",
      detail: "The user is suspended.",
    });
    expect(errorBody(toApiError(new ProjectUnavailableError("p")))).toEqual({
      message: "Request validation failed.",
      code: "validation_failed",
      validations: [{ field: "project_id", detail: "project p does not exist in this organization or is not yours" }],
    });
    expect(toApiError(new HookFailureError("hook_unavailable", "user_prompt_submit", "refused"))).toMatchObject({
      status: 502,
      code: "hook_unavailable",
    });
    expect(toApiError(new TypeError("boom"))).toMatchObject({ status: 500, code: "internal", message: "An internal error occurred." });
  });
});
