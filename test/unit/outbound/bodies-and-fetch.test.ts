/** Reading a body up to a limit (src/outbound/limited-body.ts) and the guarded fetch (src/outbound/guarded-fetch.ts). */
import { describe, expect, it } from "vitest";
import { guardedFetch } from "../../../src/outbound/guarded-fetch";
import { type OutboundGuard, OutboundRefusedError } from "../../../src/outbound/guard";
import { BodyTooLargeError, readLimitedText } from "../../../src/outbound/limited-body";

function streamed(chunks: number, size: number, onCancel?: () => void): Response {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === chunks) return controller.close();
      sent += 1;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel: onCancel,
  });
  return new Response(body);
}

describe("a body read up to a limit", () => {
  it("reads a body within the limit as text, multi-byte characters across chunks included", async () => {
    expect(await readLimitedText(new Response("caf\u00e9 \u2603"), 10)).toBe("caf\u00e9 \u2603");
    expect(await readLimitedText(new Response(null), 10)).toBe("");
    const bytes = new TextEncoder().encode("\u2603\u2603");
    const split = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 2));
        c.enqueue(bytes.slice(2));
        c.close();
      },
    });
    expect(await readLimitedText(new Response(split), 6)).toBe("\u2603\u2603");
  });

  it("refuses a declared length over the limit before reading, and cancels a stream once it passes it", async () => {
    await expect(readLimitedText(new Response("x".repeat(11)), 10)).rejects.toBeInstanceOf(BodyTooLargeError);
    let cancelled = false;
    const endless = streamed(Number.POSITIVE_INFINITY, 1024, () => {
      cancelled = true;
    });
    await expect(readLimitedText(endless, 64 * 1024)).rejects.toThrow("the body is larger than 65536 bytes");
    expect(cancelled).toBe(true);
    expect(await readLimitedText(streamed(64, 1024), 64 * 1024)).toHaveLength(64 * 1024);
  });
});

describe("the guarded fetch", () => {
  it("asks the guard once per origin and refuses before the request leaves", async () => {
    const asked: string[] = [];
    const guard: OutboundGuard = {
      async check(url) {
        const u = new URL(url);
        asked.push(u.href);
        if (u.hostname === "evil.example")
          throw new OutboundRefusedError("address", "evil.example resolves to 10.0.0.1, a private address");
      },
    };
    const sent: string[] = [];
    const base = (async (input: string | URL | Request) => {
      sent.push(input instanceof Request ? input.url : String(input));
      return new Response("ok");
    }) as typeof fetch;
    const f = guardedFetch(guard, base, ["https://checked.example"]);
    await f("https://checked.example/mcp");
    await f("https://good.example/mcp");
    await f(new Request("https://good.example/other"));
    await expect(f("https://evil.example/mcp")).rejects.toBeInstanceOf(OutboundRefusedError);
    await expect(f("https://evil.example/again")).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(asked).toEqual(["https://good.example/mcp", "https://evil.example/mcp"]);
    expect(sent).toEqual(["https://checked.example/mcp", "https://good.example/mcp", "https://good.example/other"]);
    // A URL with credentials is always asked about, even on a checked origin.
    await f("https://user:pw@checked.example/mcp").catch(() => {});
    expect(asked.at(-1)).toBe("https://user:pw@checked.example/mcp");
  });
});
