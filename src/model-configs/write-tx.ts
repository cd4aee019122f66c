/**
 * The spec's inChatModelConfigWriteTx: every model-config write runs in a READ COMMITTED
 * transaction that first takes the organization's advisory lock, then re-reads. READ COMMITTED
 * matters: each statement after the lock sees what the previous lock holder committed.
 */
import { LOCK_NAMESPACE, advisoryXactLock } from "../db/advisory-lock";
import { type Database, READ_COMMITTED } from "../db/database";

export async function inModelConfigWriteTx<T>(db: Database, organizationId: string, fn: (tx: Database) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await advisoryXactLock(tx, LOCK_NAMESPACE.modelConfigs, organizationId);
    return fn(tx);
  }, READ_COMMITTED);
}
