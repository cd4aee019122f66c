// P4's baseline: the least a stream bootstrap of a chat's history can cost in this runtime. On a
// WebSocket to /rows?chat=<id> a Durable Object runs one SELECT of the chat's client-visible
// messages (the query chatd's bootstrap runs) through the same Neon driver and WebSocket proxy as
// chatd, JSON-encodes the raw rows, sends them in frames of at most 4 MiB (chatd's bound) and then
// `{"done":true,"rows":N}`. No auth, no ownership check, no transaction, no row mapping.
import { DurableObject } from "cloudflare:workers";
import { neonConfig, Pool } from "@neondatabase/serverless";

const ROWS_SQL = "SELECT * FROM chat_messages WHERE chat_id = $1 AND NOT model_only AND revision > 0 ORDER BY id";
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

export class Rows extends DurableObject {
  #pool;

  // As src/db/client.ts configures the driver locally; the pool stays warm for the object's life.
  pool() {
    if (!this.#pool) {
      const proxy = this.env.NEON_WS_PROXY;
      if (proxy) {
        neonConfig.wsProxy = (host, port) => `${proxy}/v2?address=${host}:${port}`;
        neonConfig.useSecureWebSocket = false;
        neonConfig.pipelineTLS = false;
        neonConfig.pipelineConnect = this.env.NEON_PIPELINE_CONNECT === "password" ? "password" : false;
      }
      this.#pool = new Pool({ connectionString: this.env.DATABASE_URL, max: 1 });
      this.#pool.on("error", () => {});
    }
    return this.#pool;
  }

  async fetch(request) {
    const chatId = new URL(request.url).searchParams.get("chat");
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    this.ctx.waitUntil(this.send(server, chatId));
    return new Response(null, { status: 101, webSocket: client });
  }

  async send(ws, chatId) {
    try {
      const { rows } = await this.pool().query(ROWS_SQL, [chatId]);
      let batch = [];
      let bytes = 1;
      for (const row of rows) {
        const json = JSON.stringify(row);
        // UTF-16 length: a lower bound of the UTF-8 size, enough for the bench's ASCII rows.
        if (batch.length > 0 && bytes + json.length + 1 > MAX_FRAME_BYTES) {
          ws.send(`[${batch.join(",")}]`);
          batch = [];
          bytes = 1;
        }
        batch.push(json);
        bytes += json.length + 1;
      }
      if (batch.length > 0) ws.send(`[${batch.join(",")}]`);
      ws.send(JSON.stringify({ done: true, rows: rows.length }));
    } catch (err) {
      ws.send(JSON.stringify({ error: String(err) }));
    }
  }

  webSocketMessage() {}
  webSocketClose(ws, code) {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code);
    } catch {
      // already closed
    }
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    if (url.pathname === "/rows" && request.headers.get("Upgrade") === "websocket") {
      const chat = url.searchParams.get("chat") ?? "";
      return env.ROWS.get(env.ROWS.idFromName(chat)).fetch(request);
    }
    return new Response("not found", { status: 404 });
  },
};
