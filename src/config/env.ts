/**
 * Deployment options (the spec's CODER_CHAT_* settings as Worker vars), parsed once per
 * isolate with zod. A bad value stops the request with a clear message; nothing falls back to
 * a default silently. Defaults live in wrangler.toml, where an operator sees them.
 */
import { z } from "zod";
import { InvalidSecretKeysError } from "../secrets/errors";
import { KeyRing } from "../secrets/key-ring";
import { parseAllowList } from "../outbound/allow-list";

const int = (name: string, min: number) =>
  z
    .string({ error: `${name} is required` })
    .regex(/^\d+$/, { error: `${name} must be a whole number` })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { error: `${name} must be at least ${min}` }),
    );

/** Cloudflare's Durable Object location hints (regions). */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;

export const configSchema = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is required (a Postgres or Neon connection string)" })
    .regex(/^postgres(ql)?:\/\//, { error: "DATABASE_URL must start with postgres:// or postgresql://" }),
  CHAT_MAX_ATTACHMENTS_PER_CHAT: int("CHAT_MAX_ATTACHMENTS_PER_CHAT", 1),
  CHAT_MAX_GENERATION_RETRIES: int("CHAT_MAX_GENERATION_RETRIES", 0),
  CHAT_MAX_STEPS_PER_TURN: int("CHAT_MAX_STEPS_PER_TURN", 1),
  // 0 means unlimited, as the spec's limiter allows.
  CHAT_ROOT_CONCURRENCY: int("CHAT_ROOT_CONCURRENCY", 0),
  CHAT_SUBAGENT_CONCURRENCY: int("CHAT_SUBAGENT_CONCURRENCY", 0),
  // Rate limits (docs/fairness.md): the [[ratelimits]] bindings of wrangler.toml. Off only for
  // suites that are not about them; a shared deployment keeps them on.
  CHAT_RATE_LIMITS_ENABLED: z
    .enum(["true", "false"], { error: "CHAT_RATE_LIMITS_ENABLED must be true or false" })
    .default("true")
    .transform((v) => v === "true"),
  // Quotas (docs/fairness.md "Quotas"): what one tenant may keep. Each refusal is 403 quota_exceeded.
  CHAT_MAX_CHATS_PER_USER: int("CHAT_MAX_CHATS_PER_USER", 1).default(1_000),
  CHAT_MAX_SOCKETS_PER_CHAT: int("CHAT_MAX_SOCKETS_PER_CHAT", 1).default(100),
  CHAT_MAX_SOCKETS_PER_USER_PER_CHAT: int("CHAT_MAX_SOCKETS_PER_USER_PER_CHAT", 1).default(20),
  // One user's open /chats/watch sockets (docs/api.md "Chat list watch"), across their tabs and devices.
  CHAT_MAX_WATCH_SOCKETS_PER_USER: int("CHAT_MAX_WATCH_SOCKETS_PER_USER", 1).default(10),
  CHAT_MAX_UPLOAD_BYTES_PER_USER: int("CHAT_MAX_UPLOAD_BYTES_PER_USER", 1).default(1_073_741_824),
  CHAT_MAX_UPLOAD_BYTES_PER_ORGANIZATION: int("CHAT_MAX_UPLOAD_BYTES_PER_ORGANIZATION", 1).default(10_737_418_240),
  // Hours an upload no message attached is kept; the cron purges it after.
  CHAT_UNATTACHED_UPLOAD_TTL_HOURS: int("CHAT_UNATTACHED_UPLOAD_TTL_HOURS", 1).default(24),
  CHAT_MAX_SUBAGENTS_PER_TURN: int("CHAT_MAX_SUBAGENTS_PER_TURN", 1).default(8),
  CHAT_MAX_SUBAGENTS_PER_FAMILY: int("CHAT_MAX_SUBAGENTS_PER_FAMILY", 1).default(50),
  // Fair admission (docs/fairness.md): the most of each pool one user and one organization hold at
  // once; a tenant at its share waits, the rest of the pool stays free for others. 0: no share.
  CHAT_ROOT_CONCURRENCY_PER_USER: int("CHAT_ROOT_CONCURRENCY_PER_USER", 0).default(2),
  CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION: int("CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION", 0).default(3),
  CHAT_SUBAGENT_CONCURRENCY_PER_USER: int("CHAT_SUBAGENT_CONCURRENCY_PER_USER", 0).default(5),
  CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION: int("CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION", 0).default(6),
  CHAT_HEARTBEAT_INTERVAL_MS: int("CHAT_HEARTBEAT_INTERVAL_MS", 100),
  CHAT_STALE_THRESHOLD_MS: int("CHAT_STALE_THRESHOLD_MS", 300),
  CHAT_REQUIRES_ACTION_TIMEOUT_MS: int("CHAT_REQUIRES_ACTION_TIMEOUT_MS", 1),
  // The first wait before a failed model call is retried, doubling up to 60 s (spec: 1 s).
  CHAT_RETRY_INITIAL_DELAY_MS: int("CHAT_RETRY_INITIAL_DELAY_MS", 10).default(1_000),
  CHAT_STREAM_SYNC_POLL_MS: int("CHAT_STREAM_SYNC_POLL_MS", 100),
  // A chat quiet this long (no command, notification or socket opened, no turn running) is idle:
  // its sync poll and its sockets' credential check then run together this often, and its object
  // closes a database connection as soon as it is released (docs/stream.md, "Idle chats sleep").
  // 0: never idle (the active cadence always).
  CHAT_STREAM_IDLE_POLL_MS: int("CHAT_STREAM_IDLE_POLL_MS", 0)
    .default(60_000)
    .pipe(z.number().max(300_000, { error: "CHAT_STREAM_IDLE_POLL_MS must be at most 300000 (the bound on healing a lost notification)" })),
  // How often a user's watch object (docs/stream.md "The chat list watch") polls their chats and
  // rechecks its sockets' credentials while any watch socket is open: the bound on healing a lost
  // notification and on closing a socket whose credential lapsed. Nothing runs while none is open.
  CHAT_WATCH_POLL_MS: int("CHAT_WATCH_POLL_MS", 1_000)
    .default(20_000)
    .pipe(z.number().max(300_000, { error: "CHAT_WATCH_POLL_MS must be at most 300000 (the bound on healing a lost notification)" })),
  // How long a chat object keeps a database connection nobody uses before closing it. An object
  // that holds one cannot hibernate (docs/stream.md, "Inside the object").
  CHAT_DB_IDLE_CONNECTION_MS: int("CHAT_DB_IDLE_CONNECTION_MS", 100).default(10_000),
  // How long a chat's object trusts an API key it read (docs/hot-path.md): the bound within which a
  // deleted key or a suspended user stops authenticating there. 0: read the key on every request.
  CHAT_AUTH_CACHE_MS: int("CHAT_AUTH_CACHE_MS", 0).pipe(z.number().max(60_000, { error: "CHAT_AUTH_CACHE_MS must be at most 60000" })),
  CHAT_MAX_QUEUED_MESSAGES: int("CHAT_MAX_QUEUED_MESSAGES", 1),
  // Days without a message before a root chat is archived (docs/retention.md); 0 turns it off.
  CHAT_AUTO_ARCHIVE_DAYS: int("CHAT_AUTO_ARCHIVE_DAYS", 0),
  // Days an archived chat is kept before its family and files are deleted; 0 keeps them forever.
  CHAT_ARCHIVE_RETENTION_DAYS: int("CHAT_ARCHIVE_RETENTION_DAYS", 0),
  // Sign-in sessions (docs/accounts.md): idle for this long they expire, each use renews them, and
  // none lives past its maximum, counted from sign-in.
  CHAT_SESSION_IDLE_SECONDS: int("CHAT_SESSION_IDLE_SECONDS", 60).default(86_400),
  CHAT_SESSION_MAX_SECONDS: int("CHAT_SESSION_MAX_SECONDS", 60).default(2_592_000),
  // PBKDF2-SHA256 iterations of new password hashes (src/accounts/password.ts); a sign-in rehashes
  // a password stored with another count. workerd allows at most 100,000.
  CHAT_PASSWORD_HASH_ITERATIONS: int("CHAT_PASSWORD_HASH_ITERATIONS", 10_000)
    .pipe(z.number().max(100_000, { error: "CHAT_PASSWORD_HASH_ITERATIONS must be at most 100000 (workerd's limit)" }))
    .default(100_000),
  // Failed sign-ins per account and per address before the next attempt waits; the wait starts
  // here and doubles with each further failure, up to 15 minutes.
  CHAT_SIGN_IN_MAX_FAILURES: int("CHAT_SIGN_IN_MAX_FAILURES", 1).default(5),
  CHAT_SIGN_IN_LOCKOUT_SECONDS: int("CHAT_SIGN_IN_LOCKOUT_SECONDS", 1).default(60),
  // Origins besides the service's own that may use the session cookie: state-changing requests
  // and WebSocket upgrades it authenticates are refused from any other (CSRF). Comma-separated.
  CHAT_ALLOWED_ORIGINS: z
    .string()
    .regex(/^$|^https?:\/\/[^\s,/]+(,\s*https?:\/\/[^\s,/]+)*$/, {
      error: "CHAT_ALLOWED_ORIGINS must be origins (scheme://host[:port]) separated by commas",
    })
    .default("")
    .transform((v) => (v === "" ? [] : v.split(",").map((origin) => origin.trim().toLowerCase()))),
  // What POST /users/first demands in its Chatd-Bootstrap-Secret header (a secret: `wrangler secret
  // put CHAT_BOOTSTRAP_SECRET`). Empty: the route is off, and `npm run db:bootstrap` makes the first
  // owner (docs/accounts.md), so a stranger cannot claim a fresh deployment.
  CHAT_BOOTSTRAP_SECRET: z
    .string()
    .refine((v) => v === "" || v.length >= 16, { error: "CHAT_BOOTSTRAP_SECRET must be empty (POST /users/first off) or 16+ characters" })
    .default(""),
  // The keys provider API keys and MCP credentials are sealed with (docs/hardening.md), a secret:
  // `wrangler secret put CHAT_SECRETS_KEYS`. Required: a deployment without it answers every
  // request with this error, rather than store a credential in the clear or fail to read one.
  CHAT_SECRETS_KEYS: z
    .string()
    .default("")
    .transform((text, ctx) => {
      try {
        return KeyRing.parse(text);
      } catch (err) {
        if (!(err instanceof InvalidSecretKeysError)) throw err;
        for (const message of err.problems) ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
    }),
  // Single sign-on (docs/accounts.md "Single sign-on"): an OpenID Connect issuer; empty: off. With
  // one, the client id, its secret (a secret: `wrangler secret put OIDC_CLIENT_SECRET`) and the
  // email domains allowed to sign in are required; new users join OIDC_ORGANIZATION (a name;
  // empty: the default organization).
  OIDC_ISSUER: z
    .string()
    .regex(/^$|^https?:\/\/\S+$/, { error: "OIDC_ISSUER must be empty (single sign-on off) or an http(s) URL" })
    .default(""),
  OIDC_CLIENT_ID: z.string().default(""),
  OIDC_CLIENT_SECRET: z.string().default(""),
  OIDC_ALLOWED_DOMAINS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((d) => d.trim().toLowerCase())
        .filter((d) => d !== ""),
    ),
  OIDC_ORGANIZATION: z.string().default(""),
  CHAT_WORKER_ENABLED: z.enum(["true", "false"], { error: "CHAT_WORKER_ENABLED must be true or false" }).transform((v) => v === "true"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"], { error: "LOG_LEVEL must be debug, info, warn or error" }),
  // Lifecycle hooks (docs/hooks.md): an empty URL turns them off; with a URL the secret is required.
  CHAT_HOOK_URL: z
    .string()
    .regex(/^$|^https?:\/\/\S+$/, { error: "CHAT_HOOK_URL must be empty (hooks off) or an http(s) URL" })
    .default(""),
  CHAT_HOOK_SECRET: z.string().default(""),
  CHAT_HOOK_TIMEOUT_MS: int("CHAT_HOOK_TIMEOUT_MS", 100).default(10_000),
  // Concurrent dispatches per Worker isolate and per chat object; admission may hold this percentage.
  CHAT_HOOK_CONCURRENCY: int("CHAT_HOOK_CONCURRENCY", 1).default(64),
  CHAT_HOOK_OBJECT_CONCURRENCY: int("CHAT_HOOK_OBJECT_CONCURRENCY", 1).default(8),
  CHAT_HOOK_ADMISSION_PERCENT: int("CHAT_HOOK_ADMISSION_PERCENT", 1)
    .pipe(z.number().max(100, { error: "CHAT_HOOK_ADMISSION_PERCENT must be at most 100" }))
    .default(50),
  // Outbound requests to tenant URLs (docs/hardening.md): hosts exempt from the address checks
  // (`host` or `host:port`, comma-separated, exact), and the DNS-over-HTTPS resolver names are
  // checked with.
  CHAT_OUTBOUND_ALLOW: z
    .string()
    .default("")
    .transform((v, ctx) => {
      const parsed = parseAllowList(v);
      if (parsed.ok) return parsed.entries;
      ctx.addIssue({
        code: "custom",
        message: `CHAT_OUTBOUND_ALLOW must be host or host:port entries separated by commas, not "${parsed.bad}"`,
      });
      return z.NEVER;
    }),
  CHAT_OUTBOUND_DNS_URL: z
    .string()
    .regex(/^https?:\/\/\S+$/, { error: "CHAT_OUTBOUND_DNS_URL must be the http(s) URL of a DNS-over-HTTPS JSON resolver" })
    .default("https://cloudflare-dns.com/dns-query"),
  // An MCP tool's output past this many bytes is cut for the model (docs/mcp.md).
  CHAT_MCP_TOOL_OUTPUT_MAX_BYTES: int("CHAT_MCP_TOOL_OUTPUT_MAX_BYTES", 1024).default(65_536),
  // Debug runs (docs/debug-runs.md): "off" records nothing and refuses the chat flag; "opt_in" records
  // the model calls of chats whose owner turned debug runs on; "all" records every chat's.
  CHAT_DEBUG_RUNS: z.enum(["off", "opt_in", "all"], { error: 'CHAT_DEBUG_RUNS must be "off", "opt_in" or "all"' }).default("opt_in"),
  // A run's stored request and response past this many bytes are cut, with a marker.
  CHAT_DEBUG_RUN_MAX_BYTES: int("CHAT_DEBUG_RUN_MAX_BYTES", 4096)
    .pipe(z.number().max(4_194_304, { error: "CHAT_DEBUG_RUN_MAX_BYTES must be at most 4194304" }))
    .default(262_144),
  // Hours a run is kept; the cron deletes older ones. Runs a chat keeps at most; the oldest go first.
  CHAT_DEBUG_RUN_RETENTION_HOURS: int("CHAT_DEBUG_RUN_RETENTION_HOURS", 1)
    .pipe(z.number().max(2_160, { error: "CHAT_DEBUG_RUN_RETENTION_HOURS must be at most 2160 (90 days)" }))
    .default(72),
  CHAT_DEBUG_RUNS_PER_CHAT: int("CHAT_DEBUG_RUNS_PER_CHAT", 1)
    .pipe(z.number().max(1_000, { error: "CHAT_DEBUG_RUNS_PER_CHAT must be at most 1000" }))
    .default(100),
  // Tracing export (docs/observability.md): an empty endpoint exports nothing.
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .regex(/^$|^https?:\/\/\S+$/, { error: "OTEL_EXPORTER_OTLP_ENDPOINT must be empty (export off) or an http(s) URL" })
    .default(""),
  // `name=value` pairs separated by commas (the OpenTelemetry convention), e.g. an API key header.
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .regex(/^$|^[^=,\s]+=[^,]*(,[^=,\s]+=[^,]*)*$/, { error: "OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs separated by commas" })
    .default("")
    .transform((v) =>
      Object.fromEntries(
        v === "" ? [] : v.split(",").map((pair) => [pair.slice(0, pair.indexOf("=")).trim(), pair.slice(pair.indexOf("=") + 1).trim()]),
      ),
    ),
  // Where chat objects are created (docs/placement.md): near the database, so only the user's hop
  // to the object crosses the world. Empty: where the first request for the chat came from.
  CHAT_OBJECT_LOCATION_HINT: z
    .enum(["", ...LOCATION_HINTS], { error: `CHAT_OBJECT_LOCATION_HINT must be empty or one of ${LOCATION_HINTS.join(", ")}` })
    .default(""),
  NEON_WS_PROXY: z
    .string()
    .regex(/^$|^[\w.-]+:\d+$/, { error: "NEON_WS_PROXY must be empty or host:port" })
    .default(""),
  // With NEON_WS_PROXY only: "password" pipelines a new connection's startup and password
  // (src/db/client.ts). The local stack sets it for its embedded Postgres.
  NEON_PIPELINE_CONNECT: z.enum(["off", "password"], { error: 'NEON_PIPELINE_CONNECT must be "off" or "password"' }).default("off"),
  // How the Worker's own routes reach Postgres (src/http/request-db.ts): "neon", the Neon driver as
  // the chat objects use it, or "hyperdrive", node-postgres over the HYPERDRIVE_UNCACHED and
  // HYPERDRIVE_CACHED bindings (docs/deploy.md "Hyperdrive"). Chat objects keep the Neon driver.
  WORKER_DB_DRIVER: z.enum(["neon", "hyperdrive"], { error: 'WORKER_DB_DRIVER must be "neon" or "hyperdrive"' }).default("neon"),
});

export type Config = z.infer<typeof configSchema>;

/** Rules across settings: a hook URL needs a secret to sign with; a session's maximum covers its idle lifetime. */
const configRules = configSchema.superRefine((config, ctx) => {
  if (
    config.OIDC_ISSUER !== "" &&
    (config.OIDC_CLIENT_ID === "" || config.OIDC_CLIENT_SECRET === "" || config.OIDC_ALLOWED_DOMAINS.length === 0)
  ) {
    ctx.addIssue({ code: "custom", message: "OIDC_ISSUER needs OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_ALLOWED_DOMAINS" });
  }
  if (config.CHAT_SESSION_MAX_SECONDS < config.CHAT_SESSION_IDLE_SECONDS) {
    ctx.addIssue({ code: "custom", message: "CHAT_SESSION_MAX_SECONDS must be at least CHAT_SESSION_IDLE_SECONDS" });
  }
  if (config.CHAT_STREAM_IDLE_POLL_MS !== 0 && config.CHAT_STREAM_IDLE_POLL_MS < config.CHAT_STREAM_SYNC_POLL_MS) {
    ctx.addIssue({ code: "custom", message: "CHAT_STREAM_IDLE_POLL_MS must be 0 or at least CHAT_STREAM_SYNC_POLL_MS" });
  }
  if (config.CHAT_HOOK_URL !== "" && config.CHAT_HOOK_SECRET.length < 16) {
    ctx.addIssue({ code: "custom", message: "CHAT_HOOK_SECRET must be at least 16 characters when CHAT_HOOK_URL is set" });
  }
});

export class ConfigError extends Error {
  override name = "ConfigError";
  readonly code = "invalid_config";
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join("; ")}`);
  }
}

/** Parses raw vars; throws ConfigError listing every bad value at once. */
export function parseConfig(vars: Record<string, unknown>): Config {
  const result = configRules.safeParse(vars);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => issue.message));
}

const cache = new WeakMap<object, Config>();

/** The config for this isolate's env object, parsed on first use. */
export function configFromEnv(env: object): Config {
  let config = cache.get(env);
  if (!config) {
    config = parseConfig(env as Record<string, unknown>);
    cache.set(env, config);
  }
  return config;
}
