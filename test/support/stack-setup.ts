/**
 * globalSetup for every project that touches the stack: starts (or joins) the shared stack and
 * hands its addresses to the tests through `inject`. Each project also gets its own test MCP
 * server (scripts/test-mcp/server.ts): a few milliseconds to start, and no state shared across projects.
 */
import type { TestProject } from "vitest/node";
import { startTestMcpServer } from "../../scripts/test-mcp/server";
import { acquireStack, releaseStack } from "./shared-stack";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await acquireStack();
  project.provide("databaseUrl", stack.databaseUrl);
  project.provide("wsProxy", stack.wsProxy);
  project.provide("pipelineConnect", stack.pipelineConnect);
  project.provide("fakeModelUrl", stack.fakeModelUrl);
  const mcp = await startTestMcpServer();
  project.provide("mcpServer", { url: mcp.url, token: mcp.token, headerValue: mcp.headerValue });
  return async () => {
    await mcp.close();
    await releaseStack();
  };
}
