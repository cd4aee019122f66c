/**
 * The SDK from Node: create a chat, send a message, print the streamed answer as it arrives.
 *
 *   npm run dev                                   # in another terminal
 *   npx tsx client/examples/chat.ts "hello there"
 *
 * Reads the dev token from .data/dev-credentials.json unless CHATD_TOKEN is set; CHATD_URL
 * (default http://127.0.0.1:8787) says where the API is.
 */
import { readFileSync } from "node:fs";
import WebSocket from "ws";
import { ChatdClient, text, type WebSocketLike } from "../src/index";

const baseUrl = process.env.CHATD_URL ?? "http://127.0.0.1:8787";
const token = process.env.CHATD_TOKEN ?? (JSON.parse(readFileSync(".data/dev-credentials.json", "utf8")) as { token: string }).token;
const prompt = process.argv.slice(2).join(" ") || "hello from the chatd-edge SDK";

const client = new ChatdClient({ baseUrl, token });
const chat = await client.createChat({ body: { content: [] } });
// Node can set headers on a WebSocket: the token goes in one, not in the URL.
const stream = client.stream(chat.id, { webSocket: (url, headers) => new WebSocket(url, { headers }) as unknown as WebSocketLike });
let printed = 0;
stream.on("state", (state) => {
  const preview = state.preview?.text ?? "";
  if (preview.length > printed) {
    process.stdout.write(preview.slice(printed));
    printed = preview.length;
  }
});
await client.sendMessage({ chat: chat.id, body: { content: [text(prompt)] } });
// Done when the answer is committed and the chat waits for the next message.
const done = await stream.until((s) => s.status === "waiting" && s.messages.some((m) => m.role === "assistant"));
const answer = done.messages.findLast((m) => m.role === "assistant");
const full = (answer?.content ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
process.stdout.write(`${full.slice(printed)}\n`);
stream.close();
