/** Shared by the client tests: an SDK client on the client project's server, Node sockets with headers. */
import { inject } from "vitest";
import WebSocket from "ws";
import { ChatdClient, type ChatMessage, type WebSocketFactory, type WebSocketLike } from "../../client/src/index";

export const nodeSockets: WebSocketFactory = (url, headers) => new WebSocket(url, { headers }) as unknown as WebSocketLike;

export function sdk(baseUrl = inject("clientBaseUrl"), token: string | undefined = inject("clientToken")): ChatdClient {
  return new ChatdClient({ baseUrl, token });
}

export function textOf(message: ChatMessage | undefined): string {
  return (message?.content ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
}
