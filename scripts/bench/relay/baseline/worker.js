// Baseline relay, the physical-ish limit for a Durable Object: on POST /room/<name>/turn the room
// fetches the model's SSE stream itself (the POST's body, if any, is the user message: the relay
// bench's `/stamp` prompt; otherwise "go") and sends each text delta to every accepted WebSocket
// (GET /room/<name>/ws) as one small JSON frame. No persistence, no framework, no per-chunk
// bookkeeping beyond the SSE parse.
import { DurableObject } from "cloudflare:workers";

export class Room extends DurableObject {
  async fetch(request) {
    if (request.headers.get("Upgrade") === "websocket") {
      const { 0: client, 1: server } = new WebSocketPair();
      this.ctx.acceptWebSocket(server);
      return new Response(null, { status: 101, webSocket: client });
    }
    return Response.json(await this.relay((await request.text()) || "go"));
  }

  async relay(prompt) {
    const sockets = this.ctx.getWebSockets(); // the sockets open when the turn starts
    const send = (frame) => {
      for (const ws of sockets)
        try {
          ws.send(frame);
        } catch {
          /* closed */
        }
    };
    const res = await fetch(`${this.env.MODEL_BASE_URL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "fake", stream: true, messages: [{ role: "user", content: prompt }] }),
    });
    if (!res.ok) throw new Error(`model answered ${res.status}`);
    const decoder = new TextDecoder();
    let buf = "";
    let deltas = 0;
    for await (const bytes of res.body) {
      buf += decoder.decode(bytes, { stream: true });
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const event = buf.slice(0, end);
        buf = buf.slice(end + 2);
        if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
        const delta = JSON.parse(event.slice(6)).choices?.[0]?.delta?.content;
        if (!delta) continue;
        send(JSON.stringify({ type: "delta", delta }));
        deltas++;
      }
    }
    send(JSON.stringify({ type: "done", deltas }));
    return { deltas, sockets: sockets.length };
  }

  webSocketMessage() {}
  webSocketClose(ws, code) {
    try {
      ws.close(code);
    } catch {
      /* already closed */
    }
  }
}

export default {
  async fetch(request, env) {
    const m = new URL(request.url).pathname.match(/^\/room\/([\w-]+)\/(ws|turn)$/);
    if (m) return env.ROOM.get(env.ROOM.idFromName(m[1])).fetch(request);
    if (new URL(request.url).pathname === "/health") return new Response("ok");
    return new Response("not found", { status: 404 });
  },
};
