import type { Db } from "../db/client";

/** Who is calling: set by the auth middleware on every authenticated route. */
export interface Caller {
  userId: string;
  /** Deployment-wide roles, e.g. "owner" (site owner). */
  siteRoles: readonly string[];
  /** The API key the request authenticated with. */
  apiKeyId: string;
}

/** Hono's environment type for every router. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** A per-request database handle (stateless Worker: a pool per request). */
    db: Db;
    caller: Caller;
  };
}
