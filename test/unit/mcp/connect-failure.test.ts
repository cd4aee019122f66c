/** The few fixed words a chat's warning says about a server that did not connect (src/mcp/connect-failure.ts). */
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectFailureReason } from "../../../src/mcp/connect-failure";
import { OutboundRefusedError } from "../../../src/outbound/guard";
import { SecretUnreadableError, UnknownSecretKeyError } from "../../../src/secrets/errors";

describe("an MCP connect failure's reason", () => {
  it("names the failure, never what the server sent", () => {
    const page = "<html>Internal error at /srv/app.py line 12: password=hunter2</html>";
    const cases: [unknown, string][] = [
      [new StreamableHTTPError(500, `Error POSTing to endpoint: ${page}`), "HTTP 500"],
      [new StreamableHTTPError(401, page), "HTTP 401"],
      [new UnauthorizedError("No auth provider"), "HTTP 401"],
      [new StreamableHTTPError(-1, `Unexpected content type: text/html ${page}`), "not an MCP server"],
      [new McpError(ErrorCode.RequestTimeout, "Request timed out"), "timed out"],
      [new McpError(ErrorCode.ConnectionClosed, "Connection closed"), "connection closed"],
      [new McpError(ErrorCode.InternalError, page), "protocol error"],
      [new OutboundRefusedError("address", "loopback.test resolves to 127.0.0.1, a loopback address"), "address not allowed"],
      [new OutboundRefusedError("dns_failed", "resolving x failed"), "DNS resolution failed"],
      [new UnknownSecretKeyError("k0", "mcp_servers.bearer_token of row r"), "credentials cannot be opened"],
      [new SecretUnreadableError("mcp_servers.headers of row r"), "credentials cannot be opened"],
      [new DOMException("The operation timed out.", "TimeoutError"), "timed out"],
      [new TypeError("fetch failed: connect ECONNREFUSED 127.0.0.1:9"), "connection refused"],
      [new TypeError("Network connection lost."), "connection failed"],
      [new SyntaxError(`Unexpected token < in JSON: ${page}`), "not an MCP server"],
      ["a string", "connection failed"],
    ];
    for (const [err, reason] of cases) expect(connectFailureReason(err)).toBe(reason);
  });
});
