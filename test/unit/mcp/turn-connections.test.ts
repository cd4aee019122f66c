import { describe, expect, it } from "vitest";
import type { McpSession } from "../../../src/mcp/session";
import { type McpServerToConnect, McpTurnConnections } from "../../../src/mcp/turn-connections";

function fakeConnector() {
  const log: string[] = [];
  const connect = async (server: McpServerToConnect): Promise<McpSession> => {
    log.push(`connect ${server.name}`);
    if (server.url.includes("down")) throw new Error("connection refused");
    return {
      serverId: server.id,
      serverName: server.name,
      broken: server.url.includes("broken"),
      tools: [],
      callTool: async () => ({ content: [] }),
      close: async () => {
        log.push(`close ${server.name}`);
      },
    };
  };
  return { log, connect };
}

const server = (name: string, url = `http://${name}/mcp`, updatedAt = new Date(0)): McpServerToConnect => ({
  id: `id-${name}`,
  organizationId: "org",
  name,
  url,
  headers: {},
  headersSealedWith: null,
  bearerToken: null,
  bearerTokenSealedWith: null,
  updatedAt,
});

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("MCP connections of a turn", () => {
  it("connects once per turn, reuses across steps (failures too), closes on a new turn and at the end", async () => {
    const { log, connect } = fakeConnector();
    const connections = new McpTurnConnections(connect);
    const servers = [server("a"), server("b", "http://down/mcp")];
    const first = await connections.forTurn(5, servers);
    expect(first?.outcomes.map((o) => o.ok)).toEqual([true, false]);
    expect(first?.connect).toMatchObject({ connected: 1, failed: 1 });
    expect((await connections.forTurn(5, servers))?.connect).toBeNull();
    expect(log).toEqual(["connect a", "connect b"]);

    await connections.forTurn(7, servers);
    await flush();
    // The old turn's session closes (asynchronously) and the new turn connects afresh.
    expect([...log].sort()).toEqual(["close a", "connect a", "connect a", "connect b", "connect b"]);

    connections.closeAll();
    await flush();
    expect(log.at(-1)).toBe("close a");
    expect(connections.size).toBe(0);
  });

  it("a step of an older turn gets nothing and closes nothing", async () => {
    const { log, connect } = fakeConnector();
    const connections = new McpTurnConnections(connect);
    await connections.forTurn(9, [server("a")]);
    expect(await connections.forTurn(3, [server("a")])).toBeNull();
    await flush();
    expect(log).toEqual(["connect a"]);
  });

  it("reconnects a server edited during the turn", async () => {
    const { log, connect } = fakeConnector();
    const connections = new McpTurnConnections(connect);
    await connections.forTurn(1, [server("a")]);
    await connections.forTurn(1, [server("a", "http://a/mcp", new Date(1000))]);
    expect(log).toEqual(["connect a", "connect a"]);
    connections.closeAll();
    await flush();
    expect(log.filter((l) => l === "close a")).toHaveLength(2);
  });

  it("reconnects a session that broke during the turn", async () => {
    const { log, connect } = fakeConnector();
    const connections = new McpTurnConnections(connect);
    await connections.forTurn(1, [server("a", "http://broken/mcp")]);
    await flush();
    await connections.forTurn(1, [server("a", "http://broken/mcp")]);
    await flush();
    expect(log).toEqual(["connect a", "close a", "connect a"]);
  });
});
