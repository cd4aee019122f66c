/**
 * chat_debug_runs in Postgres: the batch insert that also drops a chat's runs past its bound, the
 * owner's list and single read, the chat's flag, and the cron's retention purge. One statement
 * each, on whatever pool the caller holds; none runs inside a chat transition.
 */
import type { Queryable, RawRow } from "../db/rows";
import type { DebugHttpRequest, DebugHttpResponse, DebugRunKind, DebugRunOutcome } from "../db/schema/debug-runs";
import type { DebugCallIdentity, NewDebugRun } from "./capture";

/** A run as listed: its call's identity and how it went, everything but the request and response bodies. */
export interface DebugRunSummary extends DebugCallIdentity {
  id: string;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  finishReason: string | null;
  bytes: number;
  createdAt: Date;
}

export interface DebugRun extends DebugRunSummary {
  request: DebugHttpRequest;
  response: DebugHttpResponse | null;
  outcome: DebugRunOutcome | null;
}

const SUMMARY_COLUMNS = `id, chat_id, kind, trace_id, provider, model, model_config_id, transport, started_at, duration_ms,
  status, error, outcome->>'finish_reason' AS finish_reason, bytes, created_at`;

/**
 * Inserts `runs` (one chat's) and keeps only the chat's newest `keep` runs, in one statement: a
 * chat never holds more than `keep` plus the batch (a batch is one model call's requests).
 */
export async function insertDebugRuns(db: Queryable, chatId: string, runs: readonly NewDebugRun[], keep: number): Promise<void> {
  if (runs.length === 0) return;
  const rows = runs.map((run) => ({
    kind: run.kind,
    trace_id: run.traceId,
    provider: run.provider,
    model: run.model,
    model_config_id: run.modelConfigId,
    transport: run.transport,
    started_at: run.startedAt.toISOString(),
    duration_ms: run.durationMs,
    status: run.status,
    error: run.error,
    request: run.request,
    response: run.response,
    outcome: run.outcome,
    bytes: run.bytes,
  }));
  await db.query(
    `WITH inserted AS (
       INSERT INTO chat_debug_runs (chat_id, kind, trace_id, provider, model, model_config_id, transport, started_at,
                                    duration_ms, status, error, request, response, outcome, bytes, created_at)
       SELECT $1, e.doc->>'kind', e.doc->>'trace_id', e.doc->>'provider', e.doc->>'model', (e.doc->>'model_config_id')::uuid,
              e.doc->>'transport', (e.doc->>'started_at')::timestamptz, (e.doc->>'duration_ms')::int, (e.doc->>'status')::int,
              e.doc->>'error', e.doc->'request', nullif(e.doc->'response', 'null'::jsonb), nullif(e.doc->'outcome', 'null'::jsonb),
              (e.doc->>'bytes')::int, clock_timestamp() + (e.ord * interval '1 microsecond')
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(doc, ord)
       RETURNING id)
     -- The new rows are newer than every old one: of the old, keep the newest (keep - inserted).
     DELETE FROM chat_debug_runs
      WHERE id IN (SELECT id FROM chat_debug_runs WHERE chat_id = $1
                    ORDER BY created_at DESC, id DESC OFFSET greatest($3 - (SELECT count(*) FROM inserted), 0))`,
    [chatId, JSON.stringify(rows), keep],
  );
}

/** The chat's runs, newest first; `traceId` narrows to one turn. */
export async function listDebugRuns(
  db: Queryable,
  chatId: string,
  opts: { limit: number; traceId?: string | undefined },
): Promise<DebugRunSummary[]> {
  const { rows } = await db.query(
    `SELECT ${SUMMARY_COLUMNS} FROM chat_debug_runs
      WHERE chat_id = $1 AND ($3::text IS NULL OR trace_id = $3)
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    [chatId, opts.limit, opts.traceId ?? null],
  );
  return rows.map(summaryOf);
}

/** One run of the chat, or undefined (another chat's run answers as a missing one). */
export async function readDebugRun(db: Queryable, chatId: string, runId: string): Promise<DebugRun | undefined> {
  const { rows } = await db.query(
    `SELECT ${SUMMARY_COLUMNS}, request, response, outcome FROM chat_debug_runs WHERE chat_id = $1 AND id = $2`,
    [chatId, runId],
  );
  const raw = rows[0];
  if (!raw) return undefined;
  return {
    ...summaryOf(raw),
    request: raw.request as DebugHttpRequest,
    response: (raw.response ?? null) as DebugHttpResponse | null,
    outcome: (raw.outcome ?? null) as DebugRunOutcome | null,
  };
}

/** Sets the chat's flag; turning it off also deletes the chat's runs. False when there is no such chat. */
export async function setChatDebugRuns(db: Queryable, chatId: string, enabled: boolean): Promise<boolean> {
  const { rows } = await db.query(
    `WITH updated AS (UPDATE chats SET debug_runs = $2, updated_at = now() WHERE id = $1 RETURNING id),
          dropped AS (DELETE FROM chat_debug_runs WHERE chat_id = $1 AND NOT $2 AND EXISTS (SELECT 1 FROM updated))
     SELECT count(*)::int AS n FROM updated`,
    [chatId, enabled],
  );
  return Number(rows[0]?.n ?? 0) > 0;
}

/** Deletes at most `limit` runs created before `before`; returns how many. */
export async function purgeDebugRuns(db: Queryable, before: Date, limit: number): Promise<number> {
  const { rows } = await db.query(
    `WITH doomed AS (SELECT id FROM chat_debug_runs WHERE created_at < $1 ORDER BY created_at LIMIT $2)
     DELETE FROM chat_debug_runs d USING doomed WHERE d.id = doomed.id RETURNING d.id`,
    [before, limit],
  );
  return rows.length;
}

function summaryOf(raw: RawRow): DebugRunSummary {
  return {
    id: String(raw.id),
    chatId: String(raw.chat_id),
    kind: raw.kind as DebugRunKind,
    traceId: (raw.trace_id ?? null) as string | null,
    provider: String(raw.provider),
    model: String(raw.model),
    modelConfigId: (raw.model_config_id ?? null) as string | null,
    transport: String(raw.transport),
    startedAt: new Date(raw.started_at as string | Date),
    durationMs: Number(raw.duration_ms),
    status: raw.status === null || raw.status === undefined ? null : Number(raw.status),
    error: (raw.error ?? null) as string | null,
    finishReason: (raw.finish_reason ?? null) as string | null,
    bytes: Number(raw.bytes),
    createdAt: new Date(raw.created_at as string | Date),
  };
}
