/**
 * Which page a cookie-authenticated request comes from (src/http/page-origin.ts): the Origin
 * header, the Referer only when there is no Origin, and `null` or nothing is nobody's page.
 */
import { describe, expect, it } from "vitest";
import { isAllowedOrigin, pageOrigin } from "../../../src/http/page-origin";

const OWN = "https://chatd.example";

describe("pageOrigin", () => {
  it("reads the Origin header, lowercased", () => {
    expect(pageOrigin("HTTPS://Chatd.Example", undefined)).toBe(OWN);
  });

  it("falls back to the Referer's origin only when there is no Origin", () => {
    expect(pageOrigin(undefined, `${OWN}/chats/1?x=2#y`)).toBe(OWN);
    expect(pageOrigin("", `${OWN}/chats/1`)).toBe(OWN);
    // A foreign Origin is not rescued by an own Referer.
    expect(pageOrigin("https://evil.example", `${OWN}/`)).toBe("https://evil.example");
  });

  it("keeps Origin: null as null, never reading the Referer then", () => {
    expect(pageOrigin("null", `${OWN}/`)).toBe("null");
  });

  it("has no page for no headers or a Referer that is not a URL; an opaque Referer is null", () => {
    expect(pageOrigin(undefined, undefined)).toBeUndefined();
    expect(pageOrigin(undefined, "not a url")).toBeUndefined();
    expect(pageOrigin(undefined, "data:text/html,<form>")).toBe("null");
  });
});

describe("isAllowedOrigin", () => {
  it("allows the service's own origin and the configured ones, exactly", () => {
    expect(isAllowedOrigin(OWN, OWN, [])).toBe(true);
    expect(isAllowedOrigin("https://app.example", OWN, ["https://app.example"])).toBe(true);
    expect(isAllowedOrigin("https://evil.example", OWN, ["https://app.example"])).toBe(false);
    // Same site but another origin: a sibling subdomain or another scheme or port.
    expect(isAllowedOrigin("https://evil.chatd.example", OWN, [])).toBe(false);
    expect(isAllowedOrigin("http://chatd.example", OWN, [])).toBe(false);
    expect(isAllowedOrigin("https://chatd.example:8443", OWN, [])).toBe(false);
  });

  it("allows no request that names no page, or an opaque one", () => {
    expect(isAllowedOrigin(undefined, OWN, [])).toBe(false);
    expect(isAllowedOrigin("null", OWN, ["null"])).toBe(false);
  });
});
