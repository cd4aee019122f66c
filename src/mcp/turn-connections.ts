/**
 * The chat object's MCP connections for the turn in progress (docs/mcp.md). Every step of a turn
 * assembles its tools afresh (src/tools), so the connections live here, keyed by the turn: the
 * first step connects, later steps of the same turn reuse the sessions (and a server that failed
 * stays failed, so a dead server costs one timeout per turn, not one per step), and the turn's
 * end or the next turn closes them.
 *
 * A turn is named by the id of its prompt (the last user message that is not model-only); ids
 * only grow, so a late step of an older turn never closes a newer turn's connections: it gets no
 * MCP tools instead (its fence makes it stale anyway).
 */
import type { McpServerRow } from "./servers";
import { errorText, logger } from "../log/log";
import type { McpSession } from "./session";
import { connectFailureReason } from "./connect-failure";

/** A server as stored: its credentials still sealed, for the connect function to open (server-secrets.ts). */
export type McpServerToConnect = Pick<
  McpServerRow,
  "id" | "organizationId" | "name" | "url" | "headers" | "headersSealedWith" | "bearerToken" | "bearerTokenSealedWith" | "updatedAt"
>;

/** `reason`: a few fixed words for the chat's warning (connect-failure.ts); the error itself is only logged. */
export type McpConnectOutcome = { ok: true; session: McpSession } | { ok: false; serverId: string; serverName: string; reason: string };

/** The spec's `mcp_connect` stage, for the servers a call connected afresh. */
export interface McpConnectSummary {
  startedAtMs: number;
  connected: number;
  failed: number;
  ms: number;
}

export interface McpTurnSessions {
  /** One per server, in order. */
  outcomes: McpConnectOutcome[];
  /** Null when every server was already connected (or had failed) earlier in the turn. */
  connect: McpConnectSummary | null;
}

export class McpTurnConnections {
  #turn: number | null = null;
  /** By server id and its last update, so an edited server is reached with its new settings. */
  #connections = new Map<string, Promise<McpConnectOutcome>>();
  /** The same outcomes once settled, to see synchronously whether a session broke. */
  #settled = new Map<string, McpConnectOutcome>();

  constructor(
    private readonly connect: (server: McpServerToConnect) => Promise<McpSession>,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many connection attempts the current turn holds (tests, logs). */
  get size(): number {
    return this.#connections.size;
  }

  /** The turn's sessions; null when `turn` is older than the turn in progress. */
  async forTurn(turn: number, servers: readonly McpServerToConnect[]): Promise<McpTurnSessions | null> {
    if (this.#turn !== null && turn < this.#turn) return null;
    if (this.#turn !== turn) {
      this.closeAll();
      this.#turn = turn;
    }
    const started = this.now();
    const fresh: Promise<McpConnectOutcome>[] = [];
    const outcomes = await Promise.all(
      servers.map((server) => {
        const key = `${server.id}:${server.updatedAt.getTime()}`;
        const settled = this.#settled.get(key);
        if (settled?.ok && settled.session.broken) {
          // Its connection dropped during the turn: reconnect rather than fail every later call.
          this.#connections.delete(key);
          this.#settled.delete(key);
          settled.session.close().catch(() => {});
        }
        let outcome = this.#connections.get(key);
        if (!outcome) {
          outcome = this.connect(server).then(
            (session): McpConnectOutcome => ({ ok: true, session }),
            (err: unknown): McpConnectOutcome => {
              const reason = connectFailureReason(err);
              logger.warn("mcp_connect_failed", { server_id: server.id, server: server.name, reason, error: errorText(err) });
              return { ok: false, serverId: server.id, serverName: server.name, reason };
            },
          );
          this.#connections.set(key, outcome);
          void outcome.then((o) => {
            if (this.#connections.get(key) === outcome) this.#settled.set(key, o);
          });
          fresh.push(outcome);
        }
        return outcome;
      }),
    );
    if (fresh.length === 0) return { outcomes, connect: null };
    const connected = (await Promise.all(fresh)).filter((o) => o.ok).length;
    return { outcomes, connect: { startedAtMs: started, connected, failed: fresh.length - connected, ms: this.now() - started } };
  }

  /** The turn ended (or a new one began): close every session, including ones still connecting. */
  closeAll(): void {
    const closing = [...this.#connections.values()];
    // The turn stays the high-water mark: a late step of an older turn still gets no tools.
    this.#connections.clear();
    this.#settled.clear();
    for (const outcome of closing) {
      void outcome.then((o) => {
        if (!o.ok) return;
        o.session
          .close()
          .catch((err: unknown) => logger.debug("mcp_close_failed", { server: o.session.serverName, error: errorText(err) }));
      });
    }
  }
}
