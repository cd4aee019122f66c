// Secrets are not in wrangler.toml, so `wrangler types` cannot see them: declared here.
declare namespace Cloudflare {
  interface Env {
    /** Postgres connection string (Neon in production). `wrangler secret put DATABASE_URL`. */
    DATABASE_URL: string;
  }
}
