/**
 * An acquisition log kept by the database itself, for the admission cap's tests: a trigger on
 * `chats` records every change of a root chat's owner (worker_id) as it is written, so the most
 * owners ever held at once is computed from the whole history, not sampled by a poll that an
 * overshoot of a few milliseconds would slip between.
 *
 * Times are each statement's clock_timestamp(). An acquisition that did not count an owner it
 * should have (the overshoot this looks for) is written after that owner's acquisition and before
 * its release, so the two intervals overlap in the log.
 */
import type { OwnDatabase } from "../../db/support/own-database";

const INSTALL = `
CREATE TABLE IF NOT EXISTS test_owner_log (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  chat_id uuid NOT NULL,
  owned boolean NOT NULL
);
CREATE OR REPLACE FUNCTION test_log_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.parent_chat_id IS NULL AND (NEW.worker_id IS NULL) IS DISTINCT FROM (OLD.worker_id IS NULL) THEN
    INSERT INTO test_owner_log (chat_id, owned) VALUES (NEW.id, NEW.worker_id IS NOT NULL);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS test_log_owner ON chats;
CREATE TRIGGER test_log_owner AFTER UPDATE OF worker_id ON chats FOR EACH ROW EXECUTE FUNCTION test_log_owner();
`;

/** Starts logging owner changes in the deployment's database (after its migrations). */
export async function logOwners(own: OwnDatabase): Promise<void> {
  await own.pool.query(INSTALL);
}

/** The most root chats owned at once over the whole log, and how many acquisitions it holds. */
export async function ownersAtOnce(own: OwnDatabase): Promise<{ max: number; acquisitions: number }> {
  const { rows } = await own.pool.query<{ chat_id: string; owned: boolean }>("SELECT chat_id, owned FROM test_owner_log ORDER BY at, seq");
  const owners = new Set<string>();
  let max = 0;
  let acquisitions = 0;
  for (const row of rows) {
    if (row.owned) {
      owners.add(row.chat_id);
      acquisitions++;
    } else owners.delete(row.chat_id);
    max = Math.max(max, owners.size);
  }
  return { max, acquisitions };
}

/**
 * How the deployment's chats stand against the cap right now: [chats owned, chats running without
 * an owner], the second being the ones waiting for a slot while the pool is full.
 */
export async function ownedAndWaiting(own: OwnDatabase): Promise<[number, number]> {
  const { rows } = await own.pool.query<{ owned: number; waiting: number }>(
    `SELECT count(*) FILTER (WHERE worker_id IS NOT NULL)::int AS owned,
            count(*) FILTER (WHERE worker_id IS NULL AND status = 'running')::int AS waiting
     FROM chats`,
  );
  return [rows[0]!.owned, rows[0]!.waiting];
}
