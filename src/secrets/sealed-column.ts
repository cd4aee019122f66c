/**
 * A column of sealed secrets and the row each value belongs to. The value's additional data names
 * its table, column, tenant and row id (and, in a map, its entry), so a ciphertext copied to another
 * row, column or organization no longer opens. Beside each sealed column, `keyColumn` holds the id
 * of the key its value is sealed with; NULL there means plaintext written before sealing existed
 * (migration 0015), read as is until rewritten or rotated (docs/hardening.md).
 */
import { open, seal } from "./envelope";
import type { KeyRing } from "./key-ring";

export interface SealedColumn {
  table: string;
  column: string;
  keyColumn: string;
  /** "text": one sealed value. "map": a JSON object whose names stay readable and whose values are each sealed. */
  shape: "text" | "map";
  /** The column of the row's tenant, bound as well; null for a deployment-wide table. */
  tenantColumn: string | null;
}

/** Which row a value belongs to. */
export interface RowIdentity {
  id: string;
  /** The value of the column's tenantColumn (null when it has none). */
  tenant: string | null;
}

export interface StoredText {
  value: string | null;
  keyId: string | null;
}

export interface StoredMap {
  value: Record<string, string>;
  keyId: string | null;
}

const FORMAT = "chatd-secret/v1";

function aad(column: SealedColumn, row: RowIdentity, entry: string | null): Uint8Array<ArrayBuffer> {
  // Copied: WebCrypto's types want bytes over an ArrayBuffer, which workerd's TextEncoder does not promise.
  return Uint8Array.from(new TextEncoder().encode(JSON.stringify([FORMAT, column.table, column.column, row.tenant, row.id, entry])));
}

function where(column: SealedColumn, row: RowIdentity, entry: string | null): string {
  return `${column.table}.${column.column}${entry === null ? "" : `[${JSON.stringify(entry)}]`} of row ${row.id}`;
}

/** What to store for `plaintext`, sealed with the current key (null stays null, with no key). */
export async function sealText(ring: KeyRing, column: SealedColumn, row: RowIdentity, plaintext: string | null): Promise<StoredText> {
  if (plaintext === null) return { value: null, keyId: null };
  const sealed = await seal(ring, plaintext, aad(column, row, null), where(column, row, null));
  return { value: sealed.envelope, keyId: sealed.keyId };
}

/** The plaintext of a stored value; a value without a key id is legacy plaintext and comes back as is. */
export async function openText(ring: KeyRing, column: SealedColumn, row: RowIdentity, stored: StoredText): Promise<string | null> {
  if (stored.value === null || stored.keyId === null) return stored.value;
  return open(ring, { envelope: stored.value, keyId: stored.keyId }, aad(column, row, null), where(column, row, null));
}

/** Each value of `plaintext` sealed with the current key; an empty map needs no key. */
export async function sealMap(
  ring: KeyRing,
  column: SealedColumn,
  row: RowIdentity,
  plaintext: Readonly<Record<string, string>>,
): Promise<StoredMap> {
  const entries = Object.entries(plaintext);
  if (entries.length === 0) return { value: {}, keyId: null };
  const sealed = await Promise.all(
    entries.map(async ([name, value]) => [name, (await seal(ring, value, aad(column, row, name), where(column, row, name))).envelope]),
  );
  return { value: Object.fromEntries(sealed), keyId: ring.currentId };
}

export async function openMap(ring: KeyRing, column: SealedColumn, row: RowIdentity, stored: StoredMap): Promise<Record<string, string>> {
  const { keyId } = stored;
  if (keyId === null) return { ...stored.value };
  const opened = await Promise.all(
    Object.entries(stored.value).map(async ([name, envelope]) => [
      name,
      await open(ring, { envelope, keyId }, aad(column, row, name), where(column, row, name)),
    ]),
  );
  return Object.fromEntries(opened);
}
