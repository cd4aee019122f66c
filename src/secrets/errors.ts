/**
 * Errors of sealed secrets (docs/hardening.md), each with a stable `code`. Their messages name keys,
 * tables, columns and row ids, never a secret or key material: they may reach logs and clients.
 */

export type SecretsErrorCode = "invalid_secret_keys" | "unknown_secret_key" | "secret_unreadable";

export abstract class SecretsError extends Error {
  abstract readonly code: SecretsErrorCode;
}

/** CHAT_SECRETS_KEYS is missing or malformed; `problems` says what, for the config's message. */
export class InvalidSecretKeysError extends SecretsError {
  override name = "InvalidSecretKeysError";
  override readonly code = "invalid_secret_keys";
  constructor(readonly problems: readonly string[]) {
    super(`invalid CHAT_SECRETS_KEYS: ${problems.join("; ")}`);
  }
}

/** A value was sealed with a key the ring no longer (or never) held: it was dropped too early. */
export class UnknownSecretKeyError extends SecretsError {
  override name = "UnknownSecretKeyError";
  override readonly code = "unknown_secret_key";
  constructor(
    readonly keyId: string,
    readonly where: string,
  ) {
    super(`${where} is sealed with key "${keyId}", which CHAT_SECRETS_KEYS does not hold`);
  }
}

/**
 * A sealed value failed to open: malformed, altered, sealed under another key with the same id, or
 * moved from another row, column or tenant (its additional data no longer matches).
 */
export class SecretUnreadableError extends SecretsError {
  override name = "SecretUnreadableError";
  override readonly code = "secret_unreadable";
  constructor(readonly where: string) {
    super(`${where} cannot be opened: it is malformed, was altered, or belongs to another row`);
  }
}
