/**
 * Sockets follow their credentials (docs/accounts.md "Sockets"): while any stream or parts socket
 * is open, the object rechecks the keys they authenticated with every CHAT_AUTH_CACHE_MS (at
 * least every MIN_CHECK_MS), in one statement, and closes each socket whose key was revoked or
 * expired, whose user was suspended or left the chat's organization, with close code 4401 and a
 * reason that says which. The bound is the one a chat's HTTP routes have for a deleted key. While
 * the chat is idle (object-cadence.ts) the check runs with the idle poll instead, and the chat's
 * first sign of life makes an overdue check due at once. A timer source of the object's one
 * alarm, as the sync poll is.
 */
import { type CredentialLapse, LAPSE_REASONS } from "../../src/accounts/lapsed-credentials";
import { errorText, logger } from "../../src/log/log";
import type { ObjectCadence } from "./object-cadence";
import type { SocketSession } from "./socket-session";

/** The close code of a socket whose credential lapsed (4000 + HTTP 401, as 4404 is for a deleted chat). */
export const CREDENTIAL_LAPSED_CODE = 4401;
/** The shortest interval between checks (CHAT_AUTH_CACHE_MS may be 0: every request reads its key). */
export const MIN_CHECK_MS = 1_000;

/** An open socket as the check sees it. */
export interface CheckedSocket {
  session: SocketSession | undefined;
  close(code: number, reason: string): void;
}

export interface SocketCredentialsDeps {
  /** Every open socket of the object, stream and parts, hibernated ones included. */
  sockets(): CheckedSocket[];
  /**
   * How many there are, without building them: the alarm clock asks for dueAt() whenever it is
   * re-armed, which a streaming turn does often, and a thousand sockets must not be listed each time.
   */
  openCount(): number;
  chatId(): string | undefined;
  lapsed(chatId: string, keyIds: readonly string[]): Promise<Map<string, CredentialLapse>>;
  intervalMs(): number;
  now(): number;
  cadence: ObjectCadence;
}

export class SocketCredentials {
  /** When the last check ran (or, before one, when the first socket was seen open). */
  #checkedAt: number | null = null;

  constructor(private readonly deps: SocketCredentialsDeps) {}

  /** The next check's deadline while any socket is open (the alarm clock's source). */
  dueAt(): number | null {
    if (this.deps.openCount() === 0) {
      this.#checkedAt = null;
      return null;
    }
    const now = this.deps.now();
    this.#checkedAt ??= now;
    return this.#checkedAt + this.deps.cadence.intervalMs(Math.max(MIN_CHECK_MS, this.deps.intervalMs()), now);
  }

  isDue(now: number): boolean {
    const at = this.dueAt();
    return at !== null && at <= now;
  }

  /**
   * The alarm fired at `now`: the check, when it is due or `anyway` (an idle chat's reads run
   * together). It counts as run from now; with `after`, its statement waits for that work first
   * (the idle wake's poll, whose connection it then reuses).
   */
  checkIfDue(now: number, anyway = false, after?: Promise<unknown>): Promise<void> | undefined {
    const at = this.dueAt();
    if (at === null || (at > now && !anyway)) return undefined;
    this.#checkedAt = now;
    return after ? after.then(() => this.#check()) : this.#check();
  }

  async #check(): Promise<void> {
    const chatId = this.deps.chatId();
    const sockets = this.deps.sockets();
    const keyIds = [...new Set(sockets.flatMap((s) => (s.session?.keyId ? [s.session.keyId] : [])))];
    if (!chatId || keyIds.length === 0) return;
    let lapsed: Map<string, CredentialLapse>;
    try {
      lapsed = await this.deps.lapsed(chatId, keyIds);
    } catch (err) {
      // The next check tries again; a socket is never closed for a check that could not run.
      logger.warn("socket_credentials_check_failed", { chat_id: chatId, error: errorText(err) });
      return;
    }
    for (const socket of sockets) {
      const lapse = socket.session?.keyId ? lapsed.get(socket.session.keyId) : undefined;
      if (!lapse) continue;
      logger.info("socket_credential_lapsed", { chat_id: chatId, user_id: socket.session?.userId, lapse });
      socket.close(CREDENTIAL_LAPSED_CODE, LAPSE_REASONS[lapse]);
    }
  }
}
