/**
 * The signed-in session: the token lives in the `coder_session_token` cookie, which the stream
 * WebSockets accept as is; JSON routes take it as a bearer header (they ignore cookies, so a
 * cross-site form cannot act with them).
 */
import { ChatdClient } from "../../client/src/index";

const COOKIE = "coder_session_token";

export function storedToken(): string | null {
  const match = document.cookie.split("; ").find((c) => c.startsWith(`${COOKIE}=`));
  return match ? decodeURIComponent(match.slice(COOKIE.length + 1)) : null;
}

export function storeToken(token: string): void {
  const secure = location.protocol === "https:" ? "; Secure" : "";
  // biome-ignore lint/suspicious/noDocumentCookie: the API reads this cookie; the Cookie Store API is not in every browser yet
  document.cookie = `${COOKIE}=${encodeURIComponent(token)}; Path=/; Max-Age=${30 * 24 * 3600}; SameSite=Strict${secure}`;
}

export function forgetToken(): void {
  // biome-ignore lint/suspicious/noDocumentCookie: as above
  document.cookie = `${COOKIE}=; Path=/; Max-Age=0`;
}

export function clientFor(token: string): ChatdClient {
  return new ChatdClient({ baseUrl: "", token });
}
