/**
 * A stream client for the restart tests: the SDK's `ChatStream` (it reconnects by itself and
 * resumes from its cursors) plus a record of every raw event per connection, so a test can tell
 * what the server re-sent or skipped, not only what the folded state ended as.
 */
import WebSocket from "ws";
import { ChatdClient, type ChatStream, type ChatStreamEvent, type WebSocketLike } from "../../../client/src/index";

export interface WatchedConnection {
  /** The URL the socket was opened with: a reconnect's query carries its resume cursors. */
  url: string;
  events: ChatStreamEvent[];
}

export interface VisibleRow {
  id: number;
  revision: number;
  content: unknown;
}

export class StreamWatch {
  readonly stream: ChatStream;
  readonly connections: WatchedConnection[] = [];
  /** Per episode `hv/ga`: seq → the part as JSON, across every connection. */
  readonly #parts = new Map<string, Map<number, string>>();
  /** What broke the stream's rules as it happened (out-of-order seq, a seq reused for another part, a re-sent message). */
  readonly problems: string[] = [];
  #lastUrl = "";

  constructor(baseUrl: string, token: string, chatId: string) {
    const client = new ChatdClient({ baseUrl, token });
    this.stream = client.stream(chatId, {
      webSocket: (url, headers) => {
        this.#lastUrl = url;
        return new WebSocket(url, { headers }) as unknown as WebSocketLike;
      },
      // Quick retries: the runtime is back within seconds, and the test waits on the catch-up.
      backoff: { initialMs: 100, maxMs: 1_000 },
    });
    this.stream.on("open", () => this.connections.push({ url: this.#lastUrl, events: [] }));
    this.stream.on("event", (event) => this.#record(event));
  }

  get chatId(): string {
    return this.stream.chatId;
  }

  close(): void {
    this.stream.close();
  }

  #record(event: ChatStreamEvent): void {
    const conn = this.connections.at(-1);
    if (!conn) return;
    const n = this.connections.length;
    if (event.type === "message_part") {
      const mp = event.message_part;
      const key = `${mp.history_version}/${mp.generation_attempt}`;
      const seen = this.#parts.get(key) ?? new Map<number, string>();
      this.#parts.set(key, seen);
      const part = JSON.stringify(mp.part);
      const before = seen.get(mp.seq);
      if (before !== undefined && before !== part)
        this.problems.push(`connection ${n}: episode ${key} seq ${mp.seq} re-sent as another part`);
      // Within one connection an episode's parts come in order, each once.
      const lastHere = conn.events.findLast(
        (e) =>
          e.type === "message_part" &&
          e.message_part.history_version === mp.history_version &&
          e.message_part.generation_attempt === mp.generation_attempt,
      );
      const resetSince =
        lastHere !== undefined && conn.events.slice(conn.events.lastIndexOf(lastHere)).some((e) => e.type === "preview_reset");
      if (lastHere?.type === "message_part" && !resetSince && mp.seq !== lastHere.message_part.seq + 1)
        this.problems.push(`connection ${n}: episode ${key} seq ${mp.seq} after ${lastHere.message_part.seq}`);
      seen.set(mp.seq, part);
    }
    if (event.type === "message") {
      // The same revision of a message twice is a duplicate, unless a history_reset re-sends the whole history.
      const m = event.message as { id: number; revision: number };
      const lastReset = this.#lastResetIndex();
      const earlier = this.#allEvents()
        .slice(lastReset + 1)
        .some(
          (e) =>
            e.type === "message" &&
            (e.message as { id: number }).id === m.id &&
            (e.message as { revision: number }).revision === m.revision,
        );
      if (earlier) this.problems.push(`connection ${n}: message ${m.id} revision ${m.revision} sent again`);
    }
    conn.events.push(event);
  }

  #allEvents(): ChatStreamEvent[] {
    return this.connections.flatMap((c) => c.events);
  }

  #lastResetIndex(): number {
    const all = this.#allEvents();
    for (let i = all.length - 1; i >= 0; i--) if (all[i]!.type === "history_reset") return i;
    return -1;
  }

  /** Episodes whose parts have a gap: seqs seen are not 1..max. */
  partGaps(): string[] {
    const gaps: string[] = [];
    for (const [key, seen] of this.#parts) {
      const max = Math.max(...seen.keys());
      for (let s = 1; s <= max; s++)
        if (!seen.has(s)) {
          gaps.push(`episode ${key}: seq ${s} never arrived (max ${max})`);
          break;
        }
    }
    return gaps;
  }

  /**
   * Where the client's folded state differs from the database's client-visible history and status;
   * empty when they agree exactly (same ids, once each, same revisions and content).
   */
  differences(rows: readonly VisibleRow[], status: string): string[] {
    const state = this.stream.state;
    const out: string[] = [];
    if (state.status !== status) out.push(`status ${state.status}, database ${status}`);
    const ids = state.messages.map((m) => m.id);
    if (new Set(ids).size !== ids.length) out.push(`a message twice in the client: ${ids.join(",")}`);
    const byId = new Map(state.messages.map((m) => [m.id, m]));
    for (const row of rows) {
      const held = byId.get(row.id);
      if (!held) out.push(`message ${row.id} (revision ${row.revision}) missing in the client`);
      else if (held.revision !== row.revision || JSON.stringify(held.content) !== JSON.stringify(row.content))
        out.push(`message ${row.id}: client revision ${held.revision}, database ${row.revision}`);
    }
    const dbIds = new Set(rows.map((r) => r.id));
    for (const id of ids) if (!dbIds.has(id)) out.push(`message ${id} in the client but not in the database's visible history`);
    return out;
  }
}
