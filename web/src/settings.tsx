/**
 * Settings (docs/accounts.md): the caller's API tokens and sessions (mint one, shown once; revoke
 * any), the members of their organization with their roles, its model configs and MCP servers,
 * and, for the site owner, the deployment's providers. The API decides who may do what; its
 * refusals are shown as they come.
 */
import { useCallback, useEffect, useState } from "react";
import type { ApiKey, ChatdClient, OrganizationMember } from "../../client/src/index";
import { useListed } from "./listed";
import { SectionError, SettingsTable } from "./settings-table";
import { McpServers } from "./mcp-settings";
import { ModelConfigs, Providers } from "./model-settings";

export function Settings({ client, organizationId }: { client: ChatdClient; organizationId: string | null }) {
  const [siteOwner, setSiteOwner] = useState(false);
  useEffect(() => {
    void client
      .me()
      .then((me) => setSiteOwner(me.roles.includes("owner")))
      .catch(() => {});
  }, [client]);
  return (
    <div className="settings">
      <h1>Settings</h1>
      <Tokens client={client} />
      {organizationId && <Members client={client} organizationId={organizationId} />}
      {siteOwner && <Providers client={client} />}
      {organizationId && <ModelConfigs client={client} organizationId={organizationId} />}
      {organizationId && <McpServers client={client} organizationId={organizationId} />}
    </div>
  );
}

function Tokens({ client }: { client: ChatdClient }) {
  const { items: keys, error, act } = useListed<ApiKey>(useCallback(() => client.listTokens({ user: "me" }), [client]));
  const [name, setName] = useState("");
  const [scope, setScope] = useState<"all" | "chat_model_config:read">("all");
  const [minted, setMinted] = useState<string | null>(null);
  return (
    <section aria-label="API tokens">
      <h2>API tokens and sessions</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const { key } = await client.createToken({ user: "me", body: { token_name: name.trim(), scope } });
            setMinted(key);
            setName("");
          });
        }}
      >
        <label htmlFor="token-name">Token name</label>
        <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} required />
        <label htmlFor="token-scope">Scope</label>
        <select id="token-scope" value={scope} onChange={(e) => setScope(e.target.value as typeof scope)}>
          <option value="all">all</option>
          <option value="chat_model_config:read">chat_model_config:read</option>
        </select>
        <button type="submit">Create token</button>
      </form>
      {minted && (
        <p className="minted row">
          <label htmlFor="new-token">New token, shown this once</label>
          <input id="new-token" readOnly value={minted} size={48} onFocus={(e) => e.target.select()} />
        </p>
      )}
      <SectionError error={error} />
      <SettingsTable columns={["Name", "Scope", "Expires", "Last used", ""]}>
        {(keys ?? []).map((k) => (
          <tr key={k.id} data-token-name={k.token_name}>
            <td>{k.token_name}</td>
            <td>{k.scope}</td>
            <td>{new Date(k.expires_at).toLocaleString()}</td>
            <td>{k.last_used_at ? new Date(k.last_used_at).toLocaleString() : "never"}</td>
            <td>
              <button type="button" onClick={() => void act(() => client.deleteToken({ user: "me", key: k.id }))}>
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </SettingsTable>
    </section>
  );
}

const ROLES = ["owner", "admin", "member"] as const;

function Members({ client, organizationId }: { client: ChatdClient; organizationId: string }) {
  const {
    items: members,
    error,
    act,
  } = useListed<OrganizationMember>(useCallback(() => client.listMembers({ organization: organizationId }), [client, organizationId]));
  const [user, setUser] = useState("");
  return (
    <section aria-label="Members">
      <h2>Members</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await client.addMember({ organization: organizationId, body: { user: user.trim() } });
            setUser("");
          });
        }}
      >
        <label htmlFor="member-user">Username or user ID</label>
        <input id="member-user" value={user} onChange={(e) => setUser(e.target.value)} required />
        <button type="submit">Add member</button>
      </form>
      <SectionError error={error} />
      <SettingsTable columns={["User", "Email", "Role", ""]}>
        {(members ?? []).map((m) => (
          <tr key={m.user_id} data-member={m.username}>
            <td>
              {m.username}
              {m.suspended ? " (suspended)" : ""}
            </td>
            <td>{m.email}</td>
            <td>
              <select
                aria-label={`Role of ${m.username}`}
                value={m.role}
                onChange={(e) =>
                  void act(() =>
                    client.updateMember({
                      organization: organizationId,
                      user: m.user_id,
                      body: { role: e.target.value as (typeof ROLES)[number] },
                    }),
                  )
                }
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </td>
            <td>
              <button
                type="button"
                aria-label={`Remove ${m.username}`}
                onClick={() => void act(() => client.removeMember({ organization: organizationId, user: m.user_id }))}
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
