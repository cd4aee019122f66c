/**
 * One connection to one MCP server over the Streamable HTTP transport, with the official SDK's
 * client: initialize, list the tools (every page), call them, close. The server's credentials
 * (bearer token, headers) go on every request the transport sends.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { guardedFetch } from "../outbound/guarded-fetch";
import type { OutboundGuard } from "../outbound/guard";
import type { McpServerRow } from "./servers";
import type { McpCallResult } from "./tool-result";

/** A server that has not answered initialize and tools/list by then is reported and skipped. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000;
/** One tool call; longer is an error result. */
export const MCP_CALL_TIMEOUT_MS = 60_000;
/** Pages of tools/list read at most (a misbehaving server must not hold preparation forever). */
const MAX_TOOL_PAGES = 20;

const CLIENT_INFO = { name: "chatd-edge", version: "0.1.0" };

export interface McpToolInfo {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  /** The server's `readOnlyHint` annotation: only `true` lets plan mode offer the tool (docs/plan-mode.md). */
  readOnlyHint?: boolean | undefined;
}

export interface McpSession {
  serverId: string;
  serverName: string;
  tools: readonly McpToolInfo[];
  /**
   * A call failed below the protocol (the connection dropped, the server forgot the session): the
   * next step of the turn connects afresh instead of reusing this session.
   */
  readonly broken: boolean;
  callTool(name: string, args: unknown, signal: AbortSignal): Promise<McpCallResult>;
  close(): Promise<void>;
}

/**
 * The SDK validates structured tool output with Ajv by default, which compiles schemas with
 * `new Function`: workerd forbids that. The model reads whatever the server returned, so output
 * schemas are not enforced here.
 */
const acceptAnyOutput: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

export function requestHeaders(server: Pick<McpServerRow, "headers" | "bearerToken">): Record<string, string> {
  const headers: Record<string, string> = { ...server.headers };
  if (server.bearerToken !== null) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === "authorization") delete headers[name];
    headers.Authorization = `Bearer ${server.bearerToken}`;
  }
  return headers;
}

/**
 * `guard` is asked before anything is sent (the URL was checked at registration, but the
 * allow-list or the name's DNS answer may have changed since), and again for any other origin a
 * request goes to: OutboundRefusedError, with nothing sent, when it refuses.
 */
export async function connectMcpServer(
  server: Pick<McpServerRow, "id" | "name" | "url" | "headers" | "bearerToken">,
  guard: OutboundGuard,
  options: { signal?: AbortSignal; fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<McpSession> {
  const timeout = options.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
  await guard.check(server.url);
  const url = new URL(server.url);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: requestHeaders(server) },
    fetch: guardedFetch(guard, options.fetch ?? ((input, init) => fetch(input, init)), [url.origin]),
  });
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptAnyOutput });
  const requestOptions = { timeout, ...(options.signal ? { signal: options.signal } : {}) };
  const close = async () => {
    // Ends the server's session too (DELETE), best effort; then drops the client's streams.
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  };
  try {
    await client.connect(transport, requestOptions);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions);
      for (const t of listed.tools)
        tools.push({ name: t.name, description: t.description, inputSchema: t.inputSchema, readOnlyHint: t.annotations?.readOnlyHint });
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    let broken = false;
    return {
      serverId: server.id,
      serverName: server.name,
      tools,
      get broken() {
        return broken;
      },
      async callTool(name, args, signal) {
        try {
          const result = await client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> }, undefined, {
            signal,
            timeout: MCP_CALL_TIMEOUT_MS,
          });
          return result as McpCallResult;
        } catch (err) {
          // A JSON-RPC error is the server answering; anything else means the session is gone.
          if (!(err instanceof McpError) && !signal.aborted) broken = true;
          throw err;
        }
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
