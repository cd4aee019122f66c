/**
 * How the bench sees a turn end (status back to "waiting"). The parts contract ends nothing at
 * the episode's end, so the end is polled:
 *  - "db" (default): `SELECT status` on one persistent node-postgres connection. A query costs
 *    Postgres well under a millisecond and costs workerd nothing, so polling does not slow the
 *    turn it measures.
 *  - "api": `GET /api/v2/chats/{id}`, as a client would. Each GET runs in the same workerd as the
 *    chat's object and opens its own database connection through the WebSocket proxy, so polling
 *    competes with the turn and the round trip (the figure's resolution) is tens to hundreds of ms.
 */
import pg from "pg";

export type TurnEndMode = "db" | "api";

export interface TurnEnd {
  /** performance.now() when the poll that first saw "waiting" returned. */
  doneAt: number;
  /** Round trip of every poll: the end's resolution is one of these plus the poll gap. */
  pollRttMs: number[];
}

export interface TurnEndWatcher {
  waitForWaiting(chatId: string, deadline: number): Promise<TurnEnd>;
  close(): Promise<void>;
}

interface Row {
  status: string;
  last_error: string | null;
}

export async function turnEndWatcher(opts: {
  mode: TurnEndMode;
  pollMs: number;
  databaseUrl: string;
  baseUrl: string;
  token: string;
}): Promise<TurnEndWatcher> {
  let read: (chatId: string, signal: AbortSignal) => Promise<Row>;
  let close = async () => {};
  if (opts.mode === "db") {
    const client = new pg.Client({ connectionString: opts.databaseUrl, query_timeout: 10_000 });
    // Without a listener, a dropped connection (Postgres stopped by a Ctrl-C that reached its
    // process group first) would crash the process before cleanup; the next query fails instead.
    client.on("error", () => {});
    await client.connect();
    read = async (chatId) => {
      const { rows } = await client.query<Row>("SELECT status, last_error FROM chats WHERE id = $1", [chatId]);
      if (!rows[0]) throw new Error(`chat ${chatId} not found in the database`);
      return rows[0];
    };
    close = () => client.end();
  } else {
    read = async (chatId, signal) => {
      const res = await fetch(`${opts.baseUrl}/api/v2/chats/${chatId}`, { headers: { authorization: `Bearer ${opts.token}` }, signal });
      if (res.status !== 200) throw new Error(`GET /api/v2/chats/${chatId}: HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return (await res.json()) as Row;
    };
  }
  return {
    close,
    async waitForWaiting(chatId, deadline) {
      const pollRttMs: number[] = [];
      for (;;) {
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`turn of chat ${chatId} not done in time (${pollRttMs.length} polls)`);
        const sent = performance.now();
        const row = await read(chatId, AbortSignal.timeout(Math.max(1, Math.ceil(left))));
        const received = performance.now();
        pollRttMs.push(received - sent);
        if (row.status === "waiting") return { doneAt: received, pollRttMs };
        if (row.status === "error") throw new Error(`turn of chat ${chatId} ended in error: ${row.last_error}`);
        if (opts.pollMs > 0) await new Promise((resolve) => setTimeout(resolve, opts.pollMs));
      }
    },
  };
}
