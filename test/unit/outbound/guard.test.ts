/**
 * The outbound request guard (docs/hardening.md) as a pure unit: every spelling of a forbidden
 * host refused, names resolved through a fake DNS-over-HTTPS resolver (test/support/fake-doh.ts),
 * failures closed, the allow-list exact.
 */
import { describe, expect, it } from "vitest";
import { parseAllowList } from "../../../src/outbound/allow-list";
import { createOutboundGuard, OutboundRefusedError, type RefusalKind } from "../../../src/outbound/guard";
import { fakeDohFetch, type FakeRecords } from "../../support/fake-doh";

const RESOLVER = "https://doh.example/dns-query";

function guardWith(allow = "", overrides = new Map<string, FakeRecords>()) {
  const parsed = parseAllowList(allow);
  if (!parsed.ok) throw new Error(parsed.bad);
  const fetch = fakeDohFetch(overrides);
  return { guard: createOutboundGuard({ allow: parsed.entries, resolverUrl: RESOLVER }, { fetch }), queries: fetch.queries };
}

async function refusal(url: string, allow = ""): Promise<OutboundRefusedError> {
  const { guard } = guardWith(allow);
  const err = await guard.check(url).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof OutboundRefusedError)) throw new Error(`${url} was not refused (${String(err)})`);
  return err;
}

async function expectRefused(url: string, kind: RefusalKind, detail?: RegExp | string): Promise<void> {
  const err = await refusal(url);
  expect({ url, kind: err.kind }).toEqual({ url, kind });
  if (detail !== undefined) expect(err.detail).toMatch(detail);
}

describe("the outbound guard", () => {
  it("refuses schemes other than http(s), and credentials in the URL even for an allowed host", async () => {
    for (const url of ["ftp://public.example/x", "file:///etc/passwd", "gopher://public.example/", "javascript:alert(1)", "data:,x"]) {
      await expectRefused(url, "scheme");
    }
    await expectRefused("http://user:pass@public.example/mcp", "credentials", "credentials (user:password@)");
    await expectRefused("https://token@public.example/mcp", "credentials");
    await expectRefused("https://:secret@public.example/mcp", "credentials");
    const err = await refusal("http://admin:hunter2@127.0.0.1:9/", "127.0.0.1:9");
    expect(err.kind).toBe("credentials");
    expect(err.detail).not.toContain("hunter2");
    await expectRefused("not a url", "invalid");
  });

  it("refuses loopback, unspecified, private, link-local, shared, multicast and reserved IPv4 in every spelling", async () => {
    const spellings: [string, RegExp][] = [
      ["127.0.0.1", /127\.0\.0\.1 is a loopback address/],
      ["127.1", /127\.0\.0\.1 is a loopback/],
      ["127.255.255.254", /loopback/],
      ["2130706433", /127\.0\.0\.1 is a loopback/],
      ["017700000001", /127\.0\.0\.1 is a loopback/],
      ["0177.0.0.1", /127\.0\.0\.1 is a loopback/],
      ["0x7f.1", /127\.0\.0\.1 is a loopback/],
      ["0x7f000001", /127\.0\.0\.1 is a loopback/],
      ["0x7f.0.0.0x1", /127\.0\.0\.1 is a loopback/],
      ["127.0.0.1.", /127\.0\.0\.1 is a loopback/],
      ["%31%32%37.0.0.1", /127\.0\.0\.1 is a loopback/],
      ["\uff11\uff12\uff17.0.0.1", /127\.0\.0\.1 is a loopback/],
      ["0.0.0.0", /unspecified/],
      ["0", /0\.0\.0\.0 is an unspecified/],
      ["10.0.0.1", /10\.0\.0\.1 is a private address/],
      ["012.0.0.1", /10\.0\.0\.1 is a private/],
      ["167772161", /10\.0\.0\.1 is a private/],
      ["172.16.0.1", /private/],
      ["172.31.255.255", /private/],
      ["192.168.1.1", /private/],
      ["0xc0.0xa8.1.1", /192\.168\.1\.1 is a private/],
      ["100.64.0.1", /shared/],
      ["100.127.255.255", /shared/],
      ["169.254.169.254", /169\.254\.169\.254 is a link-local address/],
      ["2852039166", /169\.254\.169\.254 is a link-local/],
      ["224.0.0.1", /multicast/],
      ["239.255.255.250", /multicast/],
      ["255.255.255.255", /broadcast/],
      ["240.0.0.1", /reserved/],
      ["192.0.0.8", /reserved/],
      ["192.0.2.1", /documentation/],
      ["198.18.0.1", /benchmarking/],
      ["198.51.100.1", /documentation/],
      ["203.0.113.9", /documentation/],
    ];
    for (const [host, detail] of spellings) {
      await expectRefused(`http://${host}/mcp`, "address", detail);
      await expectRefused(`https://${host}:8443/mcp`, "address", detail);
    }
  });

  it("refuses the IPv6 ones, and IPv6 forms that carry a forbidden IPv4 address", async () => {
    const spellings: [string, RegExp][] = [
      ["::1", /\[::1\] is a loopback address/],
      ["0:0:0:0:0:0:0:1", /loopback/],
      ["::", /unspecified/],
      ["::ffff:127.0.0.1", /IPv4-mapped address of 127\.0\.0\.1, a loopback address/],
      ["::ffff:7f00:1", /IPv4-mapped address of 127\.0\.0\.1/],
      ["0:0:0:0:0:ffff:7f00:0001", /IPv4-mapped address of 127\.0\.0\.1/],
      ["::ffff:a9fe:a9fe", /IPv4-mapped address of 169\.254\.169\.254, a link-local/],
      ["::ffff:10.1.2.3", /10\.1\.2\.3, a private/],
      ["::127.0.0.1", /IPv4-compatible/],
      ["::7f00:1", /IPv4-compatible/],
      ["::ffff:0:127.0.0.1", /IPv4-translated address of 127\.0\.0\.1/],
      ["64:ff9b::127.0.0.1", /NAT64 address of 127\.0\.0\.1, a loopback/],
      ["64:ff9b::a9fe:a9fe", /NAT64 address of 169\.254\.169\.254/],
      ["64:ff9b:1::1", /local-use NAT64/],
      ["2002:7f00:1::", /6to4 address of 127\.0\.0\.1/],
      ["2002:c0a8:101::1", /6to4 address of 192\.168\.1\.1/],
      ["fe80::1", /link-local/],
      ["febf::1", /link-local/],
      ["fc00::1", /unique-local/],
      ["fd12:3456::1", /unique-local/],
      ["fec0::1", /site-local/],
      ["ff02::1", /multicast/],
      ["2001:db8::1", /documentation/],
      ["2001::1", /reserved/],
      ["100::1", /discard-only/],
      ["4000::1", /reserved/],
    ];
    for (const [host, detail] of spellings) await expectRefused(`http://[${host}]:8080/mcp`, "address", detail);
  });

  it("refuses reserved names without asking DNS", async () => {
    for (const host of [
      "localhost",
      "LOCALHOST",
      "localhost.",
      "api.localhost",
      "metadata.google.internal",
      "foo.internal",
      "printer.local",
      "router.home.arpa",
      "metadata",
      "db",
    ]) {
      const { guard, queries } = guardWith();
      const err = await guard.check(`http://${host}/mcp`).catch((e: unknown) => e);
      expect(err, host).toBeInstanceOf(OutboundRefusedError);
      expect((err as OutboundRefusedError).kind).toBe("address");
      expect(queries).toEqual([]);
    }
    expect((await refusal("http://metadata.google.internal/computeMetadata/v1/")).detail).toBe(
      "metadata.google.internal is an internal name (cloud metadata and private networks)",
    );
  });

  it("lets public addresses through without DNS, and public names after asking for A and AAAA", async () => {
    const { guard, queries } = guardWith();
    await guard.check("https://93.184.215.14/mcp");
    await guard.check("http://[2606:4700::6810:84e5]:8080/mcp");
    await guard.check("http://[::ffff:8.8.8.8]/mcp");
    await guard.check("http://[64:ff9b::808:808]/mcp");
    expect(queries).toEqual([]);
    await guard.check("https://mcp.example.com/mcp");
    await guard.check("https://public.test/mcp");
    expect(queries.sort()).toEqual(["A mcp.example.com", "A public.test", "AAAA mcp.example.com", "AAAA public.test"]);
  });

  it("refuses a name when any of its addresses is forbidden, through CNAMEs too", async () => {
    await expectRefused("http://loopback.test/mcp", "address", "loopback.test resolves to 127.0.0.1, a loopback address");
    await expectRefused("http://private.test/mcp", "address", /10\.0\.0\.7, a private/);
    await expectRefused("http://cgnat.test/mcp", "address", /shared/);
    await expectRefused("http://metadata.test/mcp", "address", /169\.254\.169\.254, a link-local/);
    await expectRefused("http://v6-loopback.test/mcp", "address", /resolves to ::1, a loopback/);
    await expectRefused("http://v6-ula.test/mcp", "address", /unique-local/);
    await expectRefused("http://mapped.test/mcp", "address", /IPv4-mapped address of 127\.0\.0\.1/);
    await expectRefused("http://nat64.test/mcp", "address", /NAT64 address of 10\.0\.0\.7/);
    await expectRefused("http://mixed.test/mcp", "address", /192\.168\.1\.1, a private/);
    await expectRefused("http://mixed-v6.test/mcp", "address", /fe80::1, a link-local/);
    await expectRefused("http://cname.test/mcp", "address", /127\.0\.0\.1, a loopback/);
  });

  it("fails closed when the name does not resolve or the resolver does not answer usably", async () => {
    await expectRefused("http://nxdomain.test/mcp", "unresolvable", "nxdomain.test has no A or AAAA record");
    await expectRefused("http://nodata.test/mcp", "unresolvable");
    await expectRefused("http://servfail.test/mcp", "dns_failed", /DNS status 2/);
    await expectRefused("http://garbage.test/mcp", "dns_failed", /not JSON/);
    await expectRefused("http://bad-record.test/mcp", "dns_failed", /not an address/);
    await expectRefused("http://down.test/mcp", "dns_failed", /HTTP 503/);
    const unreachable = createOutboundGuard(
      { allow: [], resolverUrl: RESOLVER },
      {
        fetch: async () => {
          throw new TypeError("Network connection lost.");
        },
      },
    );
    const err = await unreachable.check("https://mcp.example.com/").catch((e: unknown) => e as OutboundRefusedError);
    expect(err).toMatchObject({ kind: "dns_failed", reason: "DNS resolution failed" });
    expect(err?.detail).toMatch(/could not be reached/);
    const slow = createOutboundGuard(
      { allow: [], resolverUrl: RESOLVER },
      {
        dnsTimeoutMs: 50,
        fetch: (_input, init) =>
          new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason))),
      },
    );
    expect(await slow.check("https://mcp.example.com/").catch((e: unknown) => (e as OutboundRefusedError).detail)).toMatch(/timed out/);
  });

  it("skips the address and DNS checks for allow-listed hosts, matching host and port exactly", async () => {
    const { guard, queries } = guardWith("127.0.0.1:8080, localhost, [::1]:9000, loopback.test:443, 10.0.0.7");
    await guard.check("http://127.0.0.1:8080/mcp");
    await guard.check("http://localhost:3000/mcp");
    await guard.check("http://localhost/mcp");
    await guard.check("http://[::1]:9000/mcp");
    await guard.check("https://loopback.test/mcp");
    await guard.check("http://10.0.0.7:1234/mcp");
    // The allow-list compares the parsed host: another spelling of a listed address matches too.
    await guard.check("http://0x7f.1:8080/mcp");
    expect(queries).toEqual([]);

    const refused = async (url: string) => ((await guard.check(url).catch((e: unknown) => e)) as OutboundRefusedError).kind;
    expect(await refused("http://127.0.0.1:8081/mcp")).toBe("address");
    expect(await refused("http://127.0.0.1/mcp")).toBe("address");
    expect(await refused("http://127.0.0.2:8080/mcp")).toBe("address");
    expect(await refused("http://[::1]:9001/mcp")).toBe("address");
    expect(await refused("http://loopback.test/mcp")).toBe("address");
    expect(await refused("http://api.localhost/mcp")).toBe("address");
    expect(await refused("http://10.0.0.8/mcp")).toBe("address");
  });

  it("gives each refusal a short fixed reason for chat users", async () => {
    expect((await refusal("http://127.0.0.1/")).reason).toBe("address not allowed");
    expect((await refusal("http://loopback.test/")).reason).toBe("address not allowed");
    expect((await refusal("http://nxdomain.test/")).reason).toBe("name does not resolve");
    expect((await refusal("http://servfail.test/")).reason).toBe("DNS resolution failed");
    expect((await refusal("ftp://x.example/")).reason).toBe("scheme not allowed");
    expect((await refusal("http://u:p@x.example/")).reason).toBe("credentials in URL");
  });
});
