/**
 * Errors of providers and model configs, each with a stable `code` for the one HTTP mapping
 * (src/http/errors.ts). Raised inside the write transaction, which then rolls back.
 */

export type ModelConfigErrorCode = "unknown_provider" | "provider_in_use" | "model_config_unavailable" | "no_default_model_config";

export abstract class ModelConfigError extends Error {
  abstract readonly code: ModelConfigErrorCode;
}

/** A model config names a provider that does not exist (400, field `provider_id`). */
export class UnknownProviderError extends ModelConfigError {
  override name = "UnknownProviderError";
  override readonly code = "unknown_provider";
  constructor(readonly providerId: string) {
    super(`provider ${providerId} does not exist`);
  }
}

/** Deleting a provider that live model configs still use (409). */
export class ProviderInUseError extends ModelConfigError {
  override name = "ProviderInUseError";
  override readonly code = "provider_in_use";
  constructor(readonly providerId: string) {
    super(`provider ${providerId} is used by model configs; delete or move them first`);
  }
}

/** Why an explicit model config cannot serve a chat in this organization. */
export type ModelConfigRejection = "not_found" | "deleted" | "disabled" | "provider_disabled" | "provider_unavailable";

const REJECTION_TEXT: Record<ModelConfigRejection, string> = {
  not_found: "does not exist in this organization",
  deleted: "has been deleted",
  disabled: "is disabled",
  provider_disabled: "uses a disabled provider",
  provider_unavailable: "uses a provider without usable credentials",
};

/** Chat create, send and edit with an explicit model config that may not be used (400, field `model_config_id`). */
export class ModelConfigUnavailableError extends ModelConfigError {
  override name = "ModelConfigUnavailableError";
  override readonly code = "model_config_unavailable";
  constructor(
    readonly modelConfigId: string,
    readonly reason: ModelConfigRejection,
  ) {
    super(`model config ${modelConfigId} ${REJECTION_TEXT[reason]}`);
  }
}

/** No config given and the organization has no usable default (spec: ErrNoDefaultChatModelConfig). */
export class NoDefaultModelConfigError extends ModelConfigError {
  override name = "NoDefaultModelConfigError";
  override readonly code = "no_default_model_config";
  constructor(
    readonly organizationId: string,
    /** Why the default (if any) cannot serve; "not_found" when there is none. */
    readonly reason: ModelConfigRejection,
  ) {
    super(
      `organization ${organizationId} has no usable default model config (${REJECTION_TEXT[reason].replace("this organization", "it")})`,
    );
  }
}
