/**
 * `npm run secrets:rotate`'s work (docs/hardening.md, "Secrets at rest"): every sealed column's values
 * not under the ring's current key (plaintext from before sealing included) are opened and sealed
 * again with it, in batches, one row at a time. Each write names the value and key id it read, so a
 * concurrent write (the API's, always under the current key) is never overwritten: that row is
 * skipped. A run only touches what needs it, so running it again is harmless; `updated_at` is left
 * alone (the credential did not change).
 */
import { MCP_BEARER_TOKEN, MCP_HEADERS } from "../../src/mcp/server-secrets";
import { PROVIDER_API_KEY } from "../../src/model-configs/provider-secrets";
import { SecretsError } from "../../src/secrets/errors";
import type { KeyRing } from "../../src/secrets/key-ring";
import { openMap, openText, type SealedColumn, sealMap, sealText } from "../../src/secrets/sealed-column";

/** Every sealed column of the schema. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [PROVIDER_API_KEY, MCP_BEARER_TOKEN, MCP_HEADERS];

export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

export interface ColumnProgress {
  column: string;
  /** Sealed again under the current key. */
  resealed: number;
  /** Written by someone else between this run's read and its write: left as that write made it. */
  skipped: number;
  /** Could not be opened (a key missing from the ring, an altered value): left as is, listed in `errors`. */
  failed: number;
  errors: string[];
}

export interface RotationOptions {
  batchSize?: number;
  /** After each batch, with the column's counts so far. */
  onBatch?: (progress: Readonly<ColumnProgress>) => void;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function rotateSecrets(db: Queryable, keys: KeyRing, options: RotationOptions = {}): Promise<ColumnProgress[]> {
  const results: ColumnProgress[] = [];
  for (const column of SEALED_COLUMNS) results.push(await rotateColumn(db, keys, column, options));
  return results;
}

async function rotateColumn(db: Queryable, keys: KeyRing, column: SealedColumn, options: RotationOptions): Promise<ColumnProgress> {
  const progress: ColumnProgress = { column: `${column.table}.${column.column}`, resealed: 0, skipped: 0, failed: 0, errors: [] };
  const value = q(column.column);
  const keyId = q(column.keyColumn);
  const present = column.shape === "map" ? `${value} <> '{}'::jsonb` : `${value} IS NOT NULL`;
  // The write's condition: the row still holds what was read (jsonb compares by value).
  const unchanged = column.shape === "map" ? `${value} = $4::jsonb` : `${value} IS NOT DISTINCT FROM $4`;
  const select = `SELECT id::text AS id, ${column.tenantColumn ? `${q(column.tenantColumn)}::text` : "NULL"} AS tenant,
      ${value} AS value, ${keyId} AS key_id
    FROM ${q(column.table)}
    WHERE ${present} AND ${keyId} IS DISTINCT FROM $1 AND id > $2::uuid
    ORDER BY id LIMIT $3`;
  const update = `UPDATE ${q(column.table)} SET ${value} = $2, ${keyId} = $3
    WHERE id = $1::uuid AND ${unchanged} AND ${keyId} IS NOT DISTINCT FROM $5`;
  // Ordered by id from a cursor: a row that fails is passed over, not read again in this run.
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const { rows } = await db.query(select, [keys.currentId, after, options.batchSize ?? 100]);
    if (rows.length === 0) return progress;
    for (const row of rows) {
      const id = String(row.id);
      after = id;
      const identity = { id, tenant: row.tenant === null ? null : String(row.tenant) };
      const readKey = (row.key_id ?? null) as string | null;
      let sealed: { value: unknown; keyId: string | null };
      try {
        if (column.shape === "map") {
          const stored = { value: row.value as Record<string, string>, keyId: readKey };
          const map = await sealMap(keys, column, identity, await openMap(keys, column, identity, stored));
          sealed = { value: JSON.stringify(map.value), keyId: map.keyId };
        } else {
          const stored = { value: row.value as string, keyId: readKey };
          sealed = await sealText(keys, column, identity, await openText(keys, column, identity, stored));
        }
      } catch (err) {
        if (!(err instanceof SecretsError)) throw err;
        progress.failed += 1;
        progress.errors.push(err.message);
        continue;
      }
      const read = column.shape === "map" ? JSON.stringify(row.value) : row.value;
      const written = await db.query(update, [id, sealed.value, sealed.keyId, read, readKey]);
      if (written.rowCount === 1) progress.resealed += 1;
      else progress.skipped += 1;
    }
    options.onBatch?.(progress);
  }
}
