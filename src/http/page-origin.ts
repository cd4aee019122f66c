/**
 * Which page a request comes from, and whether that page may use the session cookie for a change
 * (session-cookie.ts): pure, so the rules are tested without a Worker.
 */

/**
 * The origin of the page that made the request: its `Origin` header, or, only when it has none
 * (older browsers leave it off some same-origin requests), its `Referer`'s origin. `Origin: null`
 * (a sandboxed frame, a `no-referrer` page, a redirect across sites) is an origin nobody is
 * allowed, never a cue to look at the Referer. Undefined when neither says.
 */
export function pageOrigin(origin: string | undefined, referer: string | undefined): string | undefined {
  if (origin !== undefined && origin.trim() !== "") return origin.trim().toLowerCase();
  if (!referer) return undefined;
  try {
    // Opaque origins (`data:`, `file:`, `about:`) serialize as "null": nobody's.
    return new URL(referer).origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Whether a page of origin `page` (pageOrigin) may use the cookie: the service's own origin, or one of `allowed`. */
export function isAllowedOrigin(page: string | undefined, ownOrigin: string, allowed: readonly string[]): boolean {
  if (page === undefined || page === "null") return false;
  return page === ownOrigin.toLowerCase() || allowed.includes(page);
}
