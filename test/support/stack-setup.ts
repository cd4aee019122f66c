/**
 * globalSetup for every project that touches the stack: starts (or joins) the shared stack and
 * hands its addresses to the tests through `inject`. Each project also gets its own test MCP
 * server (scripts/test-mcp/server.ts) and DNS-over-HTTPS resolver (fake-doh.ts): a few
 * milliseconds to start, and no state shared across projects.
 */
import type { TestProject } from "vitest/node";
import { startTestMcpServer } from "../../scripts/test-mcp/server";
import { acquireStack, releaseStack } from "./shared-stack";
import { startFakeDoh } from "./fake-doh";
import { hyperdriveLocalEnv } from "../../scripts/lib/hyperdrive-local";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await acquireStack();
  // The [[hyperdrive]] bindings' local database (scripts/lib/hyperdrive-local.ts), read by the
  // workerd projects' pool as it loads wrangler.toml in this process; without it wrangler refuses.
  Object.assign(process.env, hyperdriveLocalEnv(stack.databaseUrl));
  project.provide("databaseUrl", stack.databaseUrl);
  project.provide("wsProxy", stack.wsProxy);
  project.provide("pipelineConnect", stack.pipelineConnect);
  project.provide("fakeModelUrl", stack.fakeModelUrl);
  const mcp = await startTestMcpServer();
  project.provide("mcpServer", { url: mcp.url, token: mcp.token, headerValue: mcp.headerValue });
  // The outbound guard's view of the tests (docs/hardening.md): names resolve through a fake
  // resolver, and only this project's MCP server and the closed port 9 (a server that is down)
  // are exempt from the address checks; every other local address is refused, as in production.
  const doh = await startFakeDoh();
  project.provide("dohUrl", doh.url);
  project.provide("testOutboundAllow", `${new URL(mcp.url).host},127.0.0.1:9`);
  return async () => {
    await doh.close();
    await mcp.close();
    await releaseStack();
  };
}
