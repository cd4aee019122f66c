// Secrets are not in wrangler.toml, so `wrangler types` cannot see them: declared here.
declare namespace Cloudflare {
  interface Env {
    /** Postgres connection string (Neon in production). `wrangler secret put DATABASE_URL`. */
    DATABASE_URL: string;
    /** The keys credentials are sealed with, `kid:base64key,...` (docs/hardening.md). A secret, like DATABASE_URL. */
    CHAT_SECRETS_KEYS: string;
  }
}
