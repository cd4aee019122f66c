// bench:turn's bare turn: the least a Worker and a Durable Object can do for a chat turn, as the
// reference chatd's turn is measured against (docs/bench.md, "The bare turn"). The relay bench runs
// it too (target `bare-turn`): the AI SDK's pipeline per part, with no service around it.
//
// POST /bare/<room>/turn with chatd's message body ({content: [{type: "text", text}]}) goes
// through the Worker to the room's object, which answers at once and then calls the model with the
// same AI SDK provider and streamText settings as chatd's generation step, sending each text delta
// to every socket of the room (GET /bare/<room>/ws) as one small JSON frame, {seq, text}, and
// {done, seq} at the end. No database, no state kept, no checks: what is left between the POST and
// the first frame is the dev server's hops, the object, and the model client.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { stepCountIs, streamText } from "ai";
import { DurableObject } from "cloudflare:workers";

export class BareTurn extends DurableObject {
  async fetch(request) {
    if (request.headers.get("Upgrade") === "websocket") {
      const { 0: client, 1: server } = new WebSocketPair();
      this.ctx.acceptWebSocket(server);
      return new Response(null, { status: 101, webSocket: client });
    }
    const body = await request.json();
    const prompt = (body.content ?? []).map((part) => part.text ?? "").join("");
    // The turn runs after the answer, as chatd's runs after its POST's transaction.
    this.ctx.waitUntil(this.turn(prompt));
    return Response.json({ accepted: true });
  }

  async turn(prompt) {
    const sockets = this.ctx.getWebSockets();
    const send = (frame) => {
      for (const ws of sockets)
        try {
          ws.send(frame);
        } catch {
          // closed
        }
    };
    const model = createOpenAICompatible({ name: "fake", baseURL: this.env.MODEL_BASE_URL, apiKey: "x", includeUsage: true })("fake");
    const result = streamText({
      model,
      messages: [{ role: "user", content: prompt }],
      maxRetries: 0,
      stopWhen: stepCountIs(1),
      onError: () => {},
    });
    let seq = 0;
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") send(JSON.stringify({ seq: ++seq, text: part.text }));
      else if (part.type === "error") {
        send(JSON.stringify({ error: String(part.error) }));
        break;
      }
    }
    send(JSON.stringify({ done: true, seq }));
  }

  webSocketMessage() {}
  webSocketClose(ws, code) {
    try {
      ws.close(code);
    } catch {
      // already closed
    }
  }
}

export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    // The same health path as chatd's, so the dev server is started and awaited the same way; and
    // the relay bench's, which runs this worker as its `bare-turn` target.
    if (path === "/api/v2/health" || path === "/health") return new Response("ok");
    const m = path.match(/^\/bare\/([\w-]+)\/(ws|turn)$/);
    if (m) return env.ROOM.get(env.ROOM.idFromName(m[1])).fetch(request);
    return new Response("not found", { status: 404 });
  },
};
