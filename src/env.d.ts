// Secrets are not in wrangler.toml, so `wrangler types` cannot see them: declared here.
declare namespace Cloudflare {
  interface Env {
    /** Postgres connection string (Neon in production). `wrangler secret put DATABASE_URL`. */
    DATABASE_URL: string;
  }
}

/**
 * Build-time switch of R3's notification faults (durable-objects/chat-object/notification-faults.ts): false in
 * wrangler.toml's [define], true only in the fault suite's `wrangler dev --define`.
 */
declare const __CHATD_NOTIFICATION_FAULTS__: boolean | undefined;
