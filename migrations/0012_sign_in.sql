-- A token minted by a token names it: revoking (deleting) the parent revokes its children too,
-- so no token outlives the one that made it (src/accounts/api-keys.ts).
ALTER TABLE api_keys ADD COLUMN parent_key_id text REFERENCES api_keys(id) ON DELETE CASCADE;
--> statement-breakpoint
CREATE INDEX api_keys_parent_key_id_idx ON api_keys (parent_key_id) WHERE parent_key_id IS NOT NULL;
--> statement-breakpoint
-- Failed sign-ins per subject ("account:<email>" or "address:<ip>"), which slow the next attempts
-- (src/accounts/sign-in-throttle.ts). A row is forgotten after a success or once its window passed.
CREATE TABLE sign_in_failures (
  subject text PRIMARY KEY,
  failures integer NOT NULL,
  first_failed_at timestamptz NOT NULL,
  locked_until timestamptz
);
--> statement-breakpoint
CREATE INDEX sign_in_failures_first_failed_at_idx ON sign_in_failures (first_failed_at);
