/**
 * Debug runs (docs/debug-runs.md): one row per HTTP request a chat's model call sent, what went on
 * the wire and what came back, secrets redacted and cut to CHAT_DEBUG_RUN_MAX_BYTES. Bounded per
 * chat (CHAT_DEBUG_RUNS_PER_CHAT) and in time (CHAT_DEBUG_RUN_RETENTION_HOURS, the cron's purge).
 */
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { chats } from "./chats";

/** What a run's model call was for. */
export const DEBUG_RUN_KINDS = ["step", "compaction", "title"] as const;
export type DebugRunKind = (typeof DEBUG_RUN_KINDS)[number];

/** An HTTP message as stored: headers redacted, the body parsed when it is whole JSON, else text. */
export interface DebugHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** The body was longer than its share of the cap: `body` is its first part, as text. */
  body_truncated: boolean;
  body_bytes: number;
}

export interface DebugHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** The response body as received (SSE or JSON text), redacted. */
  body: string;
  body_truncated: boolean;
  /** Bytes received up to the end of the call (the stream may have been left early). */
  body_bytes: number;
}

/** What the model call made of the response: the assistant parts, usage, finish reason. */
export interface DebugRunOutcome {
  finish_reason: string | null;
  usage: Record<string, number | null> | null;
  parts: unknown;
  parts_truncated: boolean;
}

export const chatDebugRuns = pgTable(
  "chat_debug_runs",
  {
    id: uuid().primaryKey().defaultRandom(),
    chatId: uuid()
      .notNull()
      .references(() => chats.id, { onDelete: "cascade" }),
    kind: text().$type<DebugRunKind>().notNull(),
    /** The turn's trace (GET /chats/{chat}/turns `trace_id`): the web app's turn view lists its runs. */
    traceId: text(),
    /** The provider type and model id the request was built for (a compaction's own model included). */
    provider: text().notNull(),
    model: text().notNull(),
    modelConfigId: uuid(),
    transport: text().notNull(),
    startedAt: timestamp({ withTimezone: true }).notNull(),
    durationMs: integer().notNull(),
    /** The HTTP status; null when no response came (a network error, an abort before headers). */
    status: integer(),
    error: text(),
    request: jsonb().$type<DebugHttpRequest>().notNull(),
    response: jsonb().$type<DebugHttpResponse>(),
    outcome: jsonb().$type<DebugRunOutcome>(),
    /** The stored size of request, response and outcome (at most CHAT_DEBUG_RUN_MAX_BYTES, give or take the headers). */
    bytes: integer().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("chat_debug_runs_kind_check", sql`${t.kind} IN ('step', 'compaction', 'title')`),
    // The list (newest first) and the per-chat bound.
    index("chat_debug_runs_chat_id_created_at_idx").on(t.chatId, t.createdAt.desc(), t.id.desc()),
    // The cron's retention purge.
    index("chat_debug_runs_created_at_idx").on(t.createdAt),
  ],
);

export type ChatDebugRunRow = typeof chatDebugRuns.$inferSelect;
