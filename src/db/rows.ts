/**
 * Raw rows (snake_case, as Postgres returns them) to the drizzle row types (camelCase). The
 * mapping is derived from the drizzle table definitions, so a column added to the schema maps
 * without touching this file. Works for rows from `RETURNING *` and for `to_jsonb(row)` objects
 * (timestamps as strings, numbers as JSON numbers) alike.
 */
import { getTableColumns, type Column, type Table } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { chatMessages, chatQueuedMessages, chats, type ChatMessageRow, type ChatQueuedMessageRow, type ChatRow } from "./schema/chats";
import { chatModelConfigs, chatProviders } from "./schema/models";

export type RawRow = Record<string, unknown>;

/** Anything that runs one statement: the Pool, a pooled client. Reads outside transitions take it. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: RawRow[] }>;
}

interface Field {
  key: string;
  sqlName: string;
  column: Column;
}

function fieldsOf(table: Table): Field[] {
  return Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    sqlName: column.keyAsName ? toSnakeCase(key) : column.name,
    column,
  }));
}

function mapperFor<T>(table: Table): (raw: RawRow) => T {
  const fields = fieldsOf(table);
  return (raw) => {
    const out: Record<string, unknown> = {};
    for (const { key, sqlName, column } of fields) {
      const value = raw[sqlName];
      out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return out as T;
  };
}

export const chatFromRaw = mapperFor<ChatRow>(chats);
export const messageFromRaw = mapperFor<ChatMessageRow>(chatMessages);
export const queuedFromRaw = mapperFor<ChatQueuedMessageRow>(chatQueuedMessages);
export const modelConfigFromRaw = mapperFor<typeof chatModelConfigs.$inferSelect>(chatModelConfigs);
export const providerFromRaw = mapperFor<typeof chatProviders.$inferSelect>(chatProviders);
