/**
 * How the app authenticates (docs/accounts.md). Signed in with email and password, the session is
 * the HttpOnly `coder_session_token` cookie the API set: no script on the page can read it, and
 * every request and socket of the page carries it (the API accepts it from this origin only). An
 * API token pasted instead is kept in memory for this page alone, never stored.
 */
import { ChatdClient } from "../../client/src/index";

/** The client of a page that holds the session cookie (or will, once signed in). */
export function cookieClient(): ChatdClient {
  return new ChatdClient({ baseUrl: "" });
}

/** The client of a pasted API token: sent as a header, and in the sockets' query. */
export function tokenClient(token: string): ChatdClient {
  return new ChatdClient({ baseUrl: "", token });
}

/** Whether `client` is signed in (its cookie or token authenticates). */
export async function isSignedIn(client: ChatdClient): Promise<boolean> {
  try {
    await client.me();
    return true;
  } catch {
    return false;
  }
}

/**
 * Signs out: a cookie session is revoked on the server (POST /users/logout), with every token
 * minted from it, and the cookie cleared; a pasted token is only forgotten (it may serve elsewhere).
 */
export async function signOut(client: ChatdClient): Promise<void> {
  if (client.token === undefined) await client.logout();
}
