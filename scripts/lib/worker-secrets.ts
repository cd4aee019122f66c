/**
 * The settings of src/config/env.ts that are secrets: set with `wrangler secret put NAME --env X`
 * (or a deploy's `--secrets-file`), never in wrangler.toml, whose [vars] anyone with the repository
 * reads. When each one is needed, and what it is, for the deploy check's messages (docs/deploy.md).
 */
export interface WorkerSecret {
  /** Needed always, or once the var named here is not empty, or never (an optional feature). */
  neededWhen: "always" | { varSet: string } | "optional";
  what: string;
}

export const WORKER_SECRETS: Readonly<Record<string, WorkerSecret>> = {
  DATABASE_URL: { neededWhen: "always", what: "Neon's pooled connection string (the -pooler host)" },
  CHAT_SECRETS_KEYS: { neededWhen: "always", what: 'the keys credentials are sealed with, e.g. "k1:$(openssl rand -base64 32)"' },
  CHAT_BOOTSTRAP_SECRET: { neededWhen: "optional", what: "16+ characters; turns POST /users/first on" },
  OIDC_CLIENT_SECRET: { neededWhen: { varSet: "OIDC_ISSUER" }, what: "the OpenID Connect client's secret" },
  CHAT_HOOK_SECRET: { neededWhen: { varSet: "CHAT_HOOK_URL" }, what: "16+ characters; signs every lifecycle hook event" },
  OTEL_EXPORTER_OTLP_HEADERS: { neededWhen: "optional", what: "name=value headers for the OTLP collector, e.g. its API key" },
};

/** Values that satisfy the Worker's schema, for checking the vars of a deploy whose secret values it cannot see. */
export const SECRET_PLACEHOLDERS: Readonly<Record<string, string>> = {
  DATABASE_URL: "postgres://placeholder@placeholder/placeholder",
  CHAT_SECRETS_KEYS: `placeholder:${Buffer.alloc(32, 1).toString("base64")}`,
  CHAT_BOOTSTRAP_SECRET: "",
  OIDC_CLIENT_SECRET: "placeholder",
  CHAT_HOOK_SECRET: "placeholder-placeholder",
  OTEL_EXPORTER_OTLP_HEADERS: "",
};
