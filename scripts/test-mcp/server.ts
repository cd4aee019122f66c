/**
 * A real MCP server for tests (docs/mcp.md "Tests"): the official SDK's McpServer over the
 * Streamable HTTP transport, stateful (one session per client), in this Node process. It refuses
 * any request without `Authorization: Bearer <token>` and the `X-Test-Header` value it was given,
 * so a test proves the stored credentials reach it. Its tools:
 *
 * | tool | does |
 * |---|---|
 * | `echo {text}` | answers `echo: <text>` (annotated `readOnlyHint: true`) |
 * | `add {a, b}` | answers the sum, as text and structured content `{sum}` (annotated `readOnlyHint: true`) |
 * | `fail {message}` | an `isError` result with `<message>` |
 * | `sleep {ms}` | answers `slept` after `ms` (at most 30 s), or stops early when the client cancels |
 *
 * `GET /_stats` answers what it saw (sessions opened and closed, tool calls by name), so tests can
 * tell a reused connection from a new one and see sessions closed at the end of a turn. `/broken`
 * answers 500 with BROKEN_BODY, a server failing with a body of its own. `/catalog/<n>/mcp` (n up to
 * 1000) is a server listing `n` generated tools instead (./catalog.ts), for MCP tool search. Any of
 * these under `/scoped/<name>/` counts in its own stats (`GET /_stats?scope=<name>`).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { catalog } from "./catalog";

export const TEST_MCP_HEADER = "X-Test-Header";
/** What `/broken` answers with its 500: an error page with internals, as a real server might send. */
export const BROKEN_BODY = "Traceback (most recent call last): internal-db.corp:5432 password=upstream-secret";

export interface TestMcpStats {
  sessionsOpened: number;
  sessionsClosed: number;
  unauthorized: number;
  calls: Record<string, number>;
  /** Calls the client cancelled (notifications/cancelled) before they answered. */
  cancelled: number;
}

export interface TestMcpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/mcp */
  url: string;
  token: string;
  headerValue: string;
  stats(): TestMcpStats;
  close(): Promise<void>;
}

function toolsServer(stats: TestMcpStats): McpServer {
  const server = new McpServer({ name: "chatd-test-mcp", version: "1.0.0" });
  const count = (name: string) => {
    stats.calls[name] = (stats.calls[name] ?? 0) + 1;
  };
  const readOnly = { readOnlyHint: true };
  server.registerTool(
    "echo",
    { description: "Echoes the text back.", inputSchema: { text: z.string() }, annotations: readOnly },
    async ({ text }) => {
      count("echo");
      return { content: [{ type: "text", text: `echo: ${text}` }] };
    },
  );
  server.registerTool(
    "add",
    { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() }, annotations: readOnly },
    async ({ a, b }) => {
      count("add");
      return { content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } };
    },
  );
  server.registerTool("fail", { description: "Always fails.", inputSchema: { message: z.string() } }, async ({ message }) => {
    count("fail");
    return { content: [{ type: "text", text: message }], isError: true };
  });
  server.registerTool(
    "sleep",
    { description: "Waits, then answers.", inputSchema: { ms: z.number().int().min(0).max(30_000) } },
    async ({ ms }, extra) => {
      count("sleep");
      const done = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), ms);
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve(false);
        });
      });
      if (!done) stats.cancelled += 1;
      return { content: [{ type: "text", text: "slept" }] };
    },
  );
  return server;
}

/** A server listing `n` generated tools (./catalog.ts); a call answers its name and arguments. */
function catalogServer(n: number, stats: TestMcpStats): McpServer {
  const server = new McpServer({ name: "chatd-test-catalog", version: "1.0.0" });
  for (const tool of catalog(n)) {
    const shape = Object.fromEntries(
      Object.entries(tool.properties).map(([key, p]) => {
        const base = p.type === "integer" ? z.number().int() : z.string();
        return [key, (tool.required.includes(key) ? base : base.optional()).describe(p.description)];
      }),
    );
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: shape, annotations: { readOnlyHint: tool.readOnly } },
      async (args) => {
        stats.calls[tool.name] = (stats.calls[tool.name] ?? 0) + 1;
        return { content: [{ type: "text", text: `${tool.name} ${JSON.stringify(args)}` }] };
      },
    );
  }
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export async function startTestMcpServer(options: { port?: number; host?: string } = {}): Promise<TestMcpServer> {
  const token = `mcp-${randomUUID()}`;
  const headerValue = `hv-${randomUUID().slice(0, 8)}`;
  const newStats = (): TestMcpStats => ({ sessionsOpened: 0, sessionsClosed: 0, unauthorized: 0, calls: {}, cancelled: 0 });
  const stats = newStats();
  // Paths under /scoped/<name>/ count apart (GET /_stats?scope=<name>), so a test file that counts
  // sessions and calls on /mcp is not thrown by another file's chats running at the same time.
  const scoped = new Map<string, TestMcpStats>();
  const statsOf = (scope: string | undefined): TestMcpStats => {
    if (scope === undefined) return stats;
    const found = scoped.get(scope) ?? newStats();
    scoped.set(scope, found);
    return found;
  };
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const scope = /^\/scoped\/([\w-]{1,64})\//.exec(url.pathname)?.[1];
    const path = scope === undefined ? url.pathname : url.pathname.slice(`/scoped/${scope}`.length);
    if (path === "/_stats") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(statsOf(url.searchParams.get("scope") ?? undefined)));
      return;
    }
    const counts = statsOf(scope);
    if (path === "/broken") {
      // A server that fails with a body of its own, which must never reach a chat (docs/mcp.md).
      res.writeHead(500, { "content-type": "text/plain" }).end(BROKEN_BODY);
      return;
    }
    const catalogSize = /^\/catalog\/(\d{1,4})\/mcp$/.exec(path)?.[1];
    if (path !== "/mcp" && (catalogSize === undefined || Number(catalogSize) > 1000)) {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}` || req.headers[TEST_MCP_HEADER.toLowerCase()] !== headerValue) {
      counts.unauthorized += 1;
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === "string") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "unknown session" }));
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
          counts.sessionsOpened += 1;
        },
        onsessionclosed: (id) => {
          if (sessions.delete(id)) counts.sessionsClosed += 1;
        },
      });
      await (catalogSize === undefined ? toolsServer(counts) : catalogServer(Number(catalogSize), counts)).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    headerValue,
    stats: () => structuredClone(stats),
    async close() {
      for (const t of sessions.values()) await t.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
