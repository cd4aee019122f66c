-- A deleted user (src/accounts/user-deletion.ts) keeps their row, marked, so their archived chats
-- keep an owner; they have no keys, memberships or password, and are suspended.
ALTER TABLE users ADD COLUMN deleted_at timestamptz;
