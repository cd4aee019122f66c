import type { Caller } from "../accounts/authentication";
import type { Db } from "../db/client";

export type { Caller };

/** Hono's environment type for every router. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** A per-request database handle (stateless Worker: a pool per request). */
    db: Db;
    /** Set by `requireCaller`: the caller, authenticated in the Worker. */
    caller: Caller;
    /** Set by `requireCredentials`: the presented token, for the chat's object to authenticate. */
    credentials: string;
    /** The user the chat's object authenticated `credentials` as, once it answered (for the request log). */
    authenticatedUserId: string;
  };
}
