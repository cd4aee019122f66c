/**
 * Errors of the account layer. Each carries a stable `code` for the one HTTP mapping
 * (src/http/errors.ts); all are raised before or inside a transaction that then writes nothing.
 */

export type AccountErrorCode = "first_user_exists" | "already_exists" | "last_owner" | "cannot_suspend_self" | "cannot_delete_self";

export abstract class AccountError extends Error {
  abstract readonly code: AccountErrorCode;
}

/** `POST /users/first` after any user exists (409). */
export class FirstUserExistsError extends AccountError {
  override name = "FirstUserExistsError";
  override readonly code = "first_user_exists";
  constructor() {
    super("the first user has already been created");
  }
}

/** A unique field is taken: a user's email or username, a token name, a provider name (409). */
export class AlreadyExistsError extends AccountError {
  override name = "AlreadyExistsError";
  override readonly code = "already_exists";
  constructor(
    readonly resource: string,
    readonly field: string,
  ) {
    super(`a ${resource} with this ${field} already exists`);
  }
}

/** A change that would leave an organization without an owner (409). */
export class LastOwnerError extends AccountError {
  override name = "LastOwnerError";
  override readonly code = "last_owner";
  constructor() {
    super("an organization keeps at least one owner: make another member an owner first");
  }
}

/** The site owner suspending themself (409): nobody would be left to reactivate anyone. */
export class CannotSuspendSelfError extends AccountError {
  override name = "CannotSuspendSelfError";
  override readonly code = "cannot_suspend_self";
  constructor() {
    super("you cannot suspend yourself");
  }
}

/** The site owner deleting themself (409). */
export class CannotDeleteSelfError extends AccountError {
  override name = "CannotDeleteSelfError";
  override readonly code = "cannot_delete_self";
  constructor() {
    super("you cannot delete yourself");
  }
}

/** A sign-in whose email and password do not match an active user with a password (401); it never says which part was wrong. */
export class SignInRefusedError extends Error {
  override name = "SignInRefusedError";
  readonly code = "invalid_credentials";
  constructor() {
    super("the email or password is wrong");
  }
}

/** Too many failed sign-ins for the account or the address: the next may come after `retryAfterSeconds` (429). */
export class TooManySignInAttemptsError extends Error {
  override name = "TooManySignInAttemptsError";
  readonly code = "too_many_attempts";
  constructor(readonly retryAfterSeconds: number) {
    super(`too many failed sign-ins; try again in ${retryAfterSeconds} s`);
  }
}

/** POST /users/first without the operator's bootstrap secret, or with it off (403); nothing is written. */
export class BootstrapRefusedError extends Error {
  override name = "BootstrapRefusedError";
  constructor(readonly reason: "off" | "wrong_secret") {
    super(
      reason === "off"
        ? "POST /users/first is off on this deployment: the operator creates the first owner with npm run db:bootstrap, or sets CHAT_BOOTSTRAP_SECRET"
        : "the Chatd-Bootstrap-Secret header does not match CHAT_BOOTSTRAP_SECRET",
    );
  }
}

/** A single sign-on this deployment refuses (403): no verified email, a domain not allowed, a suspended account. */
export class SingleSignOnRefusedError extends Error {
  override name = "SingleSignOnRefusedError";
  constructor(readonly reason: string) {
    super(`single sign-on refused: ${reason}`);
  }
}
