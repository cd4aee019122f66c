/**
 * Who may create the first user over HTTP (docs/accounts.md "Bootstrap"): only a caller presenting
 * the operator's CHAT_BOOTSTRAP_SECRET, and nobody when it is empty (then `npm run db:bootstrap`,
 * run by the operator against the database, makes the first owner). A fresh deployment is not
 * the first stranger's to claim.
 */
import { BootstrapRefusedError } from "./errors";
import { constantTimeEqual } from "./token";

/** Throws BootstrapRefusedError unless `presented` is the configured secret (and one is configured). */
export function assertBootstrapAllowed(configured: string, presented: string | undefined): void {
  if (configured === "") throw new BootstrapRefusedError("off");
  if (presented === undefined || !constantTimeEqual(presented, configured)) throw new BootstrapRefusedError("wrong_secret");
}
