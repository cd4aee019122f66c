/** The few chatd HTTP calls the stream benches make, as the dev owner. */

export type Api = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

export function apiClient(origin: string, token: string, timeoutMs = 60_000): Api {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${origin}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return (text === "" ? null : JSON.parse(text)) as T;
  };
}

export interface ChatWire {
  id: string;
  status: string;
  snapshot_version: number;
  history_version: number;
}

/** `GET /api/v2/chats/{chat}/stream` as a browser opens it (token in the query string). */
export function streamUrl(origin: string, chatId: string, token: string): string {
  return `${origin.replace(/^http/, "ws")}/api/v2/chats/${chatId}/stream?coder_session_token=${encodeURIComponent(token)}`;
}
