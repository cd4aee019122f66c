/**
 * Why an MCP server could not be connected, in a few fixed words for the chat's warning part
 * (docs/mcp.md). The SDK's error messages carry what the server sent (an error page, a stack
 * trace, whatever the URL answered): those stay in the object's logs, never in front of members.
 */
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { OutboundRefusedError } from "../outbound/guard";
import { SecretsError } from "../secrets/errors";

export function connectFailureReason(err: unknown): string {
  if (err instanceof OutboundRefusedError) return err.reason;
  // Sealed with a key CHAT_SECRETS_KEYS no longer holds, or altered: nothing was sent (docs/hardening.md).
  if (err instanceof SecretsError) return "credentials cannot be opened";
  if (err instanceof UnauthorizedError) return "HTTP 401";
  if (err instanceof StreamableHTTPError) {
    // -1: the answer was not JSON or an event stream.
    return typeof err.code === "number" && err.code >= 100 ? `HTTP ${err.code}` : "not an MCP server";
  }
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return "timed out";
    if (err.code === ErrorCode.ConnectionClosed) return "connection closed";
    return "protocol error";
  }
  if (err instanceof Error) {
    if (err.name === "TimeoutError" || err.name === "AbortError") return "timed out";
    // A JSON-RPC message that does not parse or fit the protocol's schema.
    if (err.name === "SyntaxError" || err.name === "ZodError" || err.name === "$ZodError") return "not an MCP server";
    if (/refused/i.test(err.message)) return "connection refused";
  }
  return "connection failed";
}
