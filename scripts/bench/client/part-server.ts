/**
 * The bench's stream server, in its own process so its CPU is not the client's: every connection
 * gets a `status: running` frame, then `--parts` `message_part` events in the stream's wire
 * format, `--per-frame` to a frame, then a `status: waiting` frame. Prints its port on stdout.
 */
import { WebSocketServer } from "ws";

const [parts, perFrame] = process.argv.slice(2).map(Number) as [number, number];
const chatId = "00000000-0000-4000-8000-000000000000";
const frames: string[] = [JSON.stringify([{ type: "status", chat_id: chatId, status: { status: "running" } }])];
for (let seq = 1; seq <= parts; seq += perFrame) {
  const events = [];
  for (let s = seq; s < seq + perFrame && s <= parts; s++) {
    events.push({
      type: "message_part",
      chat_id: chatId,
      message_part: { role: "assistant", part: { type: "text", text: `w${s} ` }, history_version: 1, generation_attempt: 1, seq: s },
    });
  }
  frames.push(JSON.stringify(events));
}
frames.push(JSON.stringify([{ type: "status", chat_id: chatId, status: { status: "waiting" } }]));

const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
server.on("connection", (ws) => {
  for (const frame of frames) ws.send(frame);
});
server.on("listening", () => {
  const address = server.address();
  if (typeof address === "object" && address) process.stdout.write(`${address.port}\n`);
});
