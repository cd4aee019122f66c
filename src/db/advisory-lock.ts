/**
 * Transaction-scoped advisory locks keyed by (namespace, hashtext(key)). The two-int form lives in
 * a different lock space from the single-bigint form (the migration runner's), and the namespace
 * keeps one concept's keys from ever colliding with another's.
 */
import { sql } from "drizzle-orm";
import type { Database } from "./database";

export const LOCK_NAMESPACE = {
  /** Per user: mints and extensions of the synthetic attribution key (spec "Gateway attribution keys"). */
  attributionKey: 0x61747472, // "attr"
  /** Per organization: every model-config write (spec "Model configuration write serialization"). */
  modelConfigs: 0x6d6f6463, // "modc"
  /** Deployment-wide: creating the first user and the default organization. */
  firstUser: 0x66697273, // "firs"
  /** Per project: saves and deletes of its memories (spec "Project memory"). */
  projectMemory: 0x6d656d6f, // "memo"
} as const;

/** Blocks until the lock is ours; released at COMMIT or ROLLBACK. Call inside a transaction. */
export async function advisoryXactLock(tx: Database, namespace: number, key: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${namespace}::int4, hashtext(${key}))`);
}
