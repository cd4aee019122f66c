/** Settings for the organization's MCP servers (docs/mcp.md), for its admins: list, add, remove. */
import { useCallback, useState } from "react";
import type { ChatdClient } from "../../client/src/index";
import { useListed } from "./listed";
import { SectionError, SettingsTable } from "./settings-table";

type McpServer = Awaited<ReturnType<ChatdClient["listMcpServers"]>>[number];

export function McpServers({ client, organizationId }: { client: ChatdClient; organizationId: string }) {
  const { items, error, act } = useListed<McpServer>(
    useCallback(() => client.listMcpServers({ organization: organizationId }), [client, organizationId]),
  );
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [token, setToken] = useState("");
  return (
    <section aria-label="MCP servers">
      <h2>MCP servers</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await client.createMcpServer({
              organization: organizationId,
              body: { name: name.trim(), url: url.trim(), ...(token ? { bearer_token: token } : {}) },
            });
            setName("");
            setUrl("");
            setToken("");
          });
        }}
      >
        <label htmlFor="mcp-name">Server name</label>
        <input id="mcp-name" value={name} onChange={(e) => setName(e.target.value)} required />
        <label htmlFor="mcp-url">Server URL</label>
        <input id="mcp-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
        <label htmlFor="mcp-token">Bearer token</label>
        <input id="mcp-token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} />
        <button type="submit">Add MCP server</button>
      </form>
      <SectionError error={error} />
      <SettingsTable columns={["Name", "URL", ""]}>
        {(items ?? []).map((s) => (
          <tr key={s.id} data-mcp-server={s.name}>
            <td>{s.name}</td>
            <td>{s.url}</td>
            <td>
              <button
                type="button"
                aria-label={`Remove ${s.name}`}
                onClick={() => void act(() => client.deleteMcpServer({ organization: organizationId, id: s.id }))}
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </SettingsTable>
    </section>
  );
}
