/**
 * A domain error as plain data. Errors do not cross the RPC boundary with their class or fields,
 * so a ChatObject returns a chat command's error as this value and the Worker maps it to its HTTP
 * answer there, once (src/http/errors.ts). The Worker's own errors take the same path, so both
 * answer alike. Each variant names the error it stands for and carries what its answer says.
 */
import {
  ChatNotFoundError,
  ChatStateError,
  type ChatStateErrorCode,
  InvalidStateError,
  TransitionNotAllowedError,
} from "../chatstate/errors";
import type { ClassifiedState, OwnershipState } from "../chatstate/states";
import type { TransitionName } from "../chatstate/transitions";
import { ConfigError } from "../config/env";
import { AuthenticationError, InsufficientScopeError } from "../accounts/authentication";
import {
  AccountError,
  type AccountErrorCode,
  BootstrapRefusedError,
  SignInRefusedError,
  SingleSignOnRefusedError,
  TooManySignInAttemptsError,
} from "../accounts/errors";
import { ChatStoreError, type ChatStoreErrorCode } from "../chats/errors";
import { FileAttachmentError } from "../files/files";
import { QuotaExceededError, type QuotaName, RateLimitedError, type RateLimitName } from "../limits/errors";
import { McpServerUnavailableError } from "../mcp/errors";
import { ModelConfigUnavailableError, NoDefaultModelConfigError, ProviderInUseError, UnknownProviderError } from "../model-configs/errors";
import { isDatabaseUnavailable } from "../db/pg-errors";
import { isChatProjectGone, ProjectUnavailableError } from "../projects/errors";
import { HookDeniedError, HookFailureError, type HookFailureCode } from "../hooks/errors";
import { OrganizationUnavailableError } from "./chat-organization";

export type ErrorValue =
  | {
      name: "TransitionNotAllowedError";
      code: TransitionNotAllowedError["code"];
      transition: TransitionName;
      from: ClassifiedState | OwnershipState;
    }
  | { name: "InvalidStateError"; code: InvalidStateError["code"]; message: string }
  | { name: "ChatNotFoundError"; chatId: string }
  /** Any other error of the state machine (a queued message or a message that is not there). */
  | { name: "ChatStateError"; code: ChatStateErrorCode; message: string }
  | { name: "FileAttachmentError"; message: string }
  | { name: "ChatStoreError"; code: ChatStoreErrorCode; message: string }
  | { name: "AuthenticationError"; detail: string }
  | { name: "InsufficientScopeError"; scope: string }
  | { name: "AccountError"; code: AccountErrorCode; message: string }
  | { name: "SignInRefusedError"; message: string }
  | { name: "SingleSignOnRefusedError"; reason: string }
  | { name: "BootstrapRefusedError"; reason: BootstrapRefusedError["reason"]; message: string }
  | { name: "TooManySignInAttemptsError"; retryAfterSeconds: number }
  | { name: "RateLimitedError"; limit: RateLimitName; retryAfterSeconds: number }
  | { name: "QuotaExceededError"; quota: QuotaName; limit: number; message: string }
  | { name: "OrganizationUnavailableError"; reason: OrganizationUnavailableError["reason"] }
  | { name: "UnknownProviderError"; message: string }
  | { name: "ModelConfigUnavailableError" | "NoDefaultModelConfigError"; message: string }
  | { name: "ProviderInUseError"; code: ProviderInUseError["code"]; message: string }
  | { name: "ProjectUnavailableError"; message: string }
  /** The chats -> projects foreign key refused an insert: the project was deleted after it was checked. */
  | { name: "ChatProjectGone" }
  | { name: "McpServerUnavailableError"; message: string }
  | { name: "HookDeniedError"; code: HookDeniedError["code"]; message: string; reason: string | undefined }
  | { name: "HookFailureError"; code: HookFailureCode; message: string }
  | { name: "ConfigError"; code: ConfigError["code"]; problems: readonly string[] }
  | { name: "DatabaseUnavailable" }
  /** Anything else: a bug or an outage the caller learns nothing about. */
  | { name: "UnexpectedError" };

export function errorValue(err: unknown): ErrorValue {
  return chatError(err) ?? accountAndModelConfigError(err) ?? hookError(err) ?? serviceError(err);
}

/**
 * The service's fault rather than the request's (answered 5xx): the object logs these where it
 * still holds the error itself, its stack included.
 */
export function isServiceFault(value: ErrorValue): boolean {
  return (
    value.name === "HookFailureError" ||
    value.name === "ConfigError" ||
    value.name === "DatabaseUnavailable" ||
    value.name === "UnexpectedError"
  );
}

/** The state machine (src/chatstate/errors.ts) and the chat store (src/chats/errors.ts). */
function chatError(err: unknown): ErrorValue | undefined {
  if (err instanceof TransitionNotAllowedError) {
    return { name: "TransitionNotAllowedError", code: err.code, transition: err.transition, from: err.from };
  }
  if (err instanceof InvalidStateError) return { name: "InvalidStateError", code: err.code, message: err.message };
  if (err instanceof ChatNotFoundError) return { name: "ChatNotFoundError", chatId: err.chatId };
  if (err instanceof ChatStateError) return { name: "ChatStateError", code: err.code, message: err.message };
  if (err instanceof FileAttachmentError) return { name: "FileAttachmentError", message: err.message };
  if (err instanceof ChatStoreError) return { name: "ChatStoreError", code: err.code, message: err.message };
  return undefined;
}

/** Accounts, providers, model configs and projects (src/accounts, src/model-configs, src/projects). */
function accountAndModelConfigError(err: unknown): ErrorValue | undefined {
  if (err instanceof AuthenticationError) return { name: "AuthenticationError", detail: err.detail };
  if (err instanceof InsufficientScopeError) return { name: "InsufficientScopeError", scope: err.scope };
  if (err instanceof AccountError) return { name: "AccountError", code: err.code, message: err.message };
  if (err instanceof SignInRefusedError) return { name: "SignInRefusedError", message: err.message };
  if (err instanceof SingleSignOnRefusedError) return { name: "SingleSignOnRefusedError", reason: err.reason };
  if (err instanceof BootstrapRefusedError) return { name: "BootstrapRefusedError", reason: err.reason, message: err.message };
  if (err instanceof TooManySignInAttemptsError) return { name: "TooManySignInAttemptsError", retryAfterSeconds: err.retryAfterSeconds };
  if (err instanceof RateLimitedError) return { name: "RateLimitedError", limit: err.limit, retryAfterSeconds: err.retryAfterSeconds };
  if (err instanceof QuotaExceededError) return { name: "QuotaExceededError", quota: err.quota, limit: err.limit, message: err.message };
  if (err instanceof OrganizationUnavailableError) return { name: "OrganizationUnavailableError", reason: err.reason };
  if (err instanceof UnknownProviderError) return { name: "UnknownProviderError", message: err.message };
  if (err instanceof ModelConfigUnavailableError) return { name: "ModelConfigUnavailableError", message: err.message };
  if (err instanceof NoDefaultModelConfigError) return { name: "NoDefaultModelConfigError", message: err.message };
  if (err instanceof ProviderInUseError) return { name: "ProviderInUseError", code: err.code, message: err.message };
  if (err instanceof ProjectUnavailableError) return { name: "ProjectUnavailableError", message: err.message };
  if (isChatProjectGone(err)) return { name: "ChatProjectGone" };
  if (err instanceof McpServerUnavailableError) return { name: "McpServerUnavailableError", message: err.message };
  return undefined;
}

/** Lifecycle hooks (src/hooks/errors.ts). */
function hookError(err: unknown): ErrorValue | undefined {
  if (err instanceof HookDeniedError) return { name: "HookDeniedError", code: err.code, message: err.message, reason: err.reason };
  if (err instanceof HookFailureError) return { name: "HookFailureError", code: err.code, message: err.message };
  return undefined;
}

function serviceError(err: unknown): ErrorValue {
  if (err instanceof ConfigError) return { name: "ConfigError", code: err.code, problems: [...err.problems] };
  if (isDatabaseUnavailable(err)) return { name: "DatabaseUnavailable" };
  return { name: "UnexpectedError" };
}
