import type { Caller } from "../accounts/authentication";
import type { RouteDb } from "../db/hyperdrive";

export type { Caller };

/** Hono's environment type for every router. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** A per-request database handle (stateless Worker: a pool per request): writes and fresh reads. */
    db: RouteDb;
    /**
     * Reads that may be served from the cached Hyperdrive config, up to its max-age old (request-db.ts):
     * never authentication, access checks, writes or the chat list. `db` itself under the Neon driver.
     */
    cachedDb: RouteDb;
    /** Set by `requireCaller`: the caller, authenticated in the Worker. */
    caller: Caller;
    /** Set by `requireCredentials`: the presented token, for the chat's object to authenticate. */
    credentials: string;
    /** The user the chat's object authenticated `credentials` as, once it answered (for the request log). */
    authenticatedUserId: string;
  };
}
