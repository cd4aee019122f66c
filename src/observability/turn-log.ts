/**
 * The chat's last turns (GET /chats/{chat}/turns), kept in its Durable Object's own storage: one
 * key per turn, ordered by end time, the oldest deleted past KEEP. Local storage, so writing a
 * turn costs no database round trip, and the log survives eviction and restarts.
 */
import { KEEP_TURNS } from "./turn-log-size";
import type { TurnSummary } from "./turn-tracing";
const PREFIX = "turn:";

/** The part of DurableObjectStorage the log uses. */
export interface TurnStorage {
  put(key: string, value: unknown): Promise<void>;
  list<T>(options: { prefix: string; reverse?: boolean; limit?: number }): Promise<Map<string, T>>;
  delete(keys: string[]): Promise<number>;
}

export class TurnLog {
  #sinceTrim = 0;

  constructor(private readonly storage: TurnStorage) {}

  async append(turn: TurnSummary): Promise<void> {
    const key = `${PREFIX}${turn.ended_at}:${turn.trace_id}`;
    await this.storage.put(key, turn);
    // Trimming lists the keys: every tenth turn is often enough to stay near KEEP.
    if (++this.#sinceTrim < 10) return;
    this.#sinceTrim = 0;
    const keys = [...(await this.storage.list({ prefix: PREFIX, reverse: true })).keys()];
    if (keys.length > KEEP_TURNS) await this.storage.delete(keys.slice(KEEP_TURNS));
  }

  /** The newest `limit` turns, newest first. */
  async latest(limit: number): Promise<TurnSummary[]> {
    const found = await this.storage.list<TurnSummary>({ prefix: PREFIX, reverse: true, limit: Math.min(limit, KEEP_TURNS) });
    return [...found.values()];
  }
}
