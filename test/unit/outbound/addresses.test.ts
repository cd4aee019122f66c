/** IP literals read and written (src/outbound/ip-address.ts) and the allow-list's entries (src/outbound/allow-list.ts). */
import { describe, expect, it } from "vitest";
import { effectivePort, isAllowListed, parseAllowList } from "../../../src/outbound/allow-list";
import { forbiddenAddress } from "../../../src/outbound/forbidden-addresses";
import { formatIp, parseIPv4, parseIPv6, parseIpLiteral } from "../../../src/outbound/ip-address";

describe("IP literals", () => {
  it("reads dotted quads strictly (the URL parser has normalized every other spelling)", () => {
    expect(parseIPv4("127.0.0.1")).toEqual(new Uint8Array([127, 0, 0, 1]));
    for (const bad of ["127.1", "0177.0.0.1", "256.0.0.1", "1.2.3", "1.2.3.4.5", "0x7f.0.0.1", "", "a.b.c.d"]) {
      expect(parseIPv4(bad), bad).toBeNull();
    }
  });

  it("reads IPv6 with :: and a trailing quad, and writes RFC 5952 text", () => {
    const cases: [string, string][] = [
      ["::1", "::1"],
      ["::", "::"],
      ["0:0:0:0:0:0:0:1", "::1"],
      ["::ffff:127.0.0.1", "::ffff:7f00:1"],
      ["::127.0.0.1", "::7f00:1"],
      ["64:ff9b::10.0.0.7", "64:ff9b::a00:7"],
      ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"],
      ["2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["fe80::", "fe80::"],
      ["1::", "1::"],
      ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
    ];
    for (const [text, canonical] of cases) {
      const bytes = parseIPv6(text);
      expect(bytes, text).not.toBeNull();
      expect(formatIp(bytes!)).toBe(canonical);
    }
    for (const bad of [
      ":1",
      "1:::2",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "12345::",
      "g::1",
      "::1.2.3",
      "1.2.3.4",
      "::1:2:3:4:5:6:7:8",
    ]) {
      expect(parseIPv6(bad), bad).toBeNull();
    }
    expect(parseIpLiteral("[::1]")).toEqual(parseIPv6("::1"));
    expect(parseIpLiteral("example.com")).toBeNull();
  });

  it("call globally reachable addresses public", () => {
    for (const ip of [
      "8.8.8.8",
      "1.1.1.1",
      "93.184.215.14",
      "172.15.255.255",
      "172.32.0.0",
      "100.63.255.255",
      "100.128.0.0",
      "192.169.0.1",
      "223.255.255.255",
    ]) {
      expect(forbiddenAddress(parseIPv4(ip)!), ip).toBeNull();
    }
    for (const ip of ["2606:4700::6810:84e5", "2a00:1450:4001:82a::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]) {
      expect(forbiddenAddress(parseIPv6(ip)!), ip).toBeNull();
    }
  });
});

describe("the outbound allow-list", () => {
  it("parses host and host:port entries, normalized as the URL parser spells hosts", () => {
    expect(parseAllowList("")).toEqual({ ok: true, entries: [] });
    expect(parseAllowList(" 127.0.0.1:8080 , LocalHost,[::1]:9000,mcp.corp.example , 0x7f.1 ,")).toEqual({
      ok: true,
      entries: [
        { host: "127.0.0.1", port: 8080 },
        { host: "localhost", port: null },
        { host: "[::1]", port: 9000 },
        { host: "mcp.corp.example", port: null },
        { host: "127.0.0.1", port: null },
      ],
    });
    for (const bad of [
      "http://x.example",
      "x.example/path",
      "x.example:0",
      "x.example:70000",
      "user@x.example",
      "x.example:port",
      "[::1",
      "a b",
      "::1",
    ]) {
      expect(parseAllowList(`ok.example,${bad}`), bad).toEqual({ ok: false, bad });
    }
  });

  it("matches host and the effective port exactly", () => {
    const parsed = parseAllowList("a.example:443,b.example");
    if (!parsed.ok) throw new Error("parse");
    expect(effectivePort(new URL("https://a.example/"))).toBe(443);
    expect(effectivePort(new URL("http://a.example/"))).toBe(80);
    expect(isAllowListed(new URL("https://a.example/mcp"), parsed.entries)).toBe(true);
    expect(isAllowListed(new URL("http://a.example:443/mcp"), parsed.entries)).toBe(true);
    expect(isAllowListed(new URL("http://a.example/mcp"), parsed.entries)).toBe(false);
    expect(isAllowListed(new URL("http://x.a.example:443/mcp"), parsed.entries)).toBe(false);
    expect(isAllowListed(new URL("http://b.example:1/mcp"), parsed.entries)).toBe(true);
    expect(isAllowListed(new URL("http://b.example.evil.example/mcp"), parsed.entries)).toBe(false);
  });
});
