/**
 * A fetch that asks the guard before each request leaves, for clients (the MCP SDK's transport)
 * that make many requests from one URL a tenant gave, and may follow redirects within its origin.
 * An origin is checked once per fetch made here (a connection's lifetime): its requests then go
 * out without a DNS query each, and a request to any other origin is checked before it goes.
 */
import type { OutboundGuard } from "./guard";

export function guardedFetch(guard: OutboundGuard, base: typeof fetch, checked: readonly string[] = []): typeof fetch {
  const origins = new Map<string, Promise<void>>(checked.map((origin) => [origin, Promise.resolve()]));
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    // An origin leaves out userinfo: a URL with credentials is always asked about (and refused).
    let verdict = url.username === "" && url.password === "" ? origins.get(url.origin) : undefined;
    if (!verdict) {
      verdict = guard.check(url);
      origins.set(url.origin, verdict);
    }
    await verdict;
    return base(input, init);
  };
}
