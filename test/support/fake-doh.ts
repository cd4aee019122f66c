/**
 * A DNS-over-HTTPS resolver for tests (docs/hardening.md), speaking the JSON API the outbound guard
 * asks (`GET ?name=&type=A|AAAA`). Names under `.test` answer from NAMES below; any other name
 * answers a public address, so the tests' example hosts (`mcp.example.com`) pass the guard
 * without the Internet. As a function (`fakeDohFetch`, for unit tests) or an HTTP server
 * (`startFakeDoh`, for the workerd projects), where `POST /_answers {name, records}` sets a name's
 * answer (records null: back to the table), to turn a name private after it was registered.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRecords {
  a?: string[];
  aaaa?: string[];
  /** A CNAME record ahead of the addresses, as a resolver answers a chain. */
  cname?: string;
  /** The DNS status (RCODE): 0 by default, 3 NXDOMAIN, 2 SERVFAIL. */
  status?: number;
  /** Answer this body instead of JSON. */
  raw?: string;
  /** Answer this HTTP status. */
  httpStatus?: number;
}

export const PUBLIC_V4 = "93.184.215.14";
export const PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:c7a0";

export const NAMES: Record<string, FakeRecords> = {
  "public.test": { a: [PUBLIC_V4], aaaa: [PUBLIC_V6] },
  "loopback.test": { a: ["127.0.0.1"] },
  "private.test": { a: ["10.0.0.7"] },
  "cgnat.test": { a: ["100.64.1.1"] },
  "metadata.test": { a: ["169.254.169.254"] },
  "v6-loopback.test": { aaaa: ["::1"] },
  "v6-ula.test": { aaaa: ["fd00::1"] },
  "mapped.test": { aaaa: ["::ffff:7f00:1"] },
  "nat64.test": { aaaa: ["64:ff9b::a00:7"] },
  "mixed.test": { a: [PUBLIC_V4, "192.168.1.1"], aaaa: [PUBLIC_V6] },
  "mixed-v6.test": { a: [PUBLIC_V4], aaaa: ["fe80::1"] },
  "cname.test": { cname: "loopback.test", a: ["127.0.0.1"] },
  "nxdomain.test": { status: 3 },
  "nodata.test": {},
  "servfail.test": { status: 2 },
  "garbage.test": { raw: "<html>not json</html>" },
  "bad-record.test": { a: ["not-an-address"] },
  "down.test": { httpStatus: 503 },
};

const TYPES = { A: 1, AAAA: 28, CNAME: 5 } as const;

function recordsOf(name: string, overrides: ReadonlyMap<string, FakeRecords>): FakeRecords {
  const key = name.toLowerCase().replace(/\.$/, "");
  return overrides.get(key) ?? NAMES[key] ?? (key.endsWith(".test") ? { status: 3 } : { a: [PUBLIC_V4], aaaa: [PUBLIC_V6] });
}

/** The resolver's answer to one query URL: status and body. */
export function dohAnswer(url: URL, overrides: ReadonlyMap<string, FakeRecords> = new Map()): { status: number; body: string } {
  const name = url.searchParams.get("name") ?? "";
  const type = url.searchParams.get("type") === "AAAA" ? "AAAA" : "A";
  const records = recordsOf(name, overrides);
  if (records.httpStatus !== undefined) return { status: records.httpStatus, body: "unavailable" };
  if (records.raw !== undefined) return { status: 200, body: records.raw };
  const answer: { name: string; type: number; TTL: number; data: string }[] = [];
  if (records.cname) answer.push({ name, type: TYPES.CNAME, TTL: 60, data: `${records.cname}.` });
  for (const data of (type === "A" ? records.a : records.aaaa) ?? []) answer.push({ name, type: TYPES[type], TTL: 60, data });
  const status = records.status ?? 0;
  return {
    status: 200,
    body: JSON.stringify({ Status: status, Question: [{ name, type: TYPES[type] }], ...(status === 0 ? { Answer: answer } : {}) }),
  };
}

/** A fetch that answers every request as the resolver; `queries` records the names asked. */
export function fakeDohFetch(overrides: ReadonlyMap<string, FakeRecords> = new Map()): typeof fetch & { queries: string[] } {
  const queries: string[] = [];
  const doFetch = async (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : input);
    queries.push(`${url.searchParams.get("type")} ${url.searchParams.get("name")}`);
    const { status, body } = dohAnswer(url, overrides);
    return new Response(body, { status, headers: { "content-type": "application/dns-json" } });
  };
  return Object.assign(doFetch as typeof fetch, { queries });
}

export interface FakeDoh {
  /** The resolver's endpoint, for CHAT_OUTBOUND_DNS_URL. */
  url: string;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFakeDoh(): Promise<FakeDoh> {
  const overrides = new Map<string, FakeRecords>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://doh");
    if (req.method === "POST" && url.pathname === "/_answers") {
      void bodyOf(req).then((text) => {
        const { name, records } = JSON.parse(text) as { name: string; records: FakeRecords | null };
        if (records === null) overrides.delete(name);
        else overrides.set(name, records);
        res.writeHead(204).end();
      });
      return;
    }
    const { status, body } = dohAnswer(url, overrides);
    res.writeHead(status, { "content-type": "application/dns-json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/dns-query`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
