/**
 * Settings for models (docs/accounts.md): the deployment's providers, for the site owner (their
 * keys are written, never shown), and the organization's model configs, for its admins.
 */
import { useCallback, useState } from "react";
import type { ChatdClient, ModelConfig } from "../../client/src/index";
import { useListed } from "./listed";
import { SectionError, SettingsTable } from "./settings-table";

type Provider = Awaited<ReturnType<ChatdClient["listProviders"]>>[number];

export function Providers({ client }: { client: ChatdClient }) {
  const { items, error, act } = useListed<Provider>(useCallback(() => client.listProviders(), [client]));
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKey, setApiKey] = useState("");
  return (
    <section aria-label="Providers">
      <h2>Providers</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await client.createProvider({
              body: { type: "openai-compatible", name: name.trim(), base_url: baseUrl.trim(), ...(apiKey ? { api_key: apiKey } : {}) },
            });
            setName("");
            setBaseUrl("");
            setApiKey("");
          });
        }}
      >
        <label htmlFor="provider-name">Provider name</label>
        <input id="provider-name" value={name} onChange={(e) => setName(e.target.value)} required />
        <label htmlFor="provider-url">Base URL</label>
        <input id="provider-url" type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required />
        <label htmlFor="provider-key">API key</label>
        <input id="provider-key" type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
        <button type="submit">Add provider</button>
      </form>
      <SectionError error={error} />
      <SettingsTable columns={["Name", "Type", "Enabled"]}>
        {(items ?? []).map((p) => (
          <tr key={p.id} data-provider={p.name}>
            <td>{p.name}</td>
            <td>{p.type}</td>
            <td>{p.enabled ? "yes" : "no"}</td>
          </tr>
        ))}
      </SettingsTable>
    </section>
  );
}

export function ModelConfigs({ client, organizationId }: { client: ChatdClient; organizationId: string }) {
  const { items, error, act } = useListed<ModelConfig>(
    useCallback(() => client.listModelConfigs({ organization: organizationId }), [client, organizationId]),
  );
  const providers = useListed(
    useCallback(async () => (await client.listModels({ organization: organizationId })).providers, [client, organizationId]),
  );
  const [providerId, setProviderId] = useState("");
  const [model, setModel] = useState("");
  return (
    <section aria-label="Model configs">
      <h2>Model configs</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await client.createModelConfig({ organization: organizationId, body: { provider_id: providerId, model: model.trim() } });
            setModel("");
          });
        }}
      >
        <label htmlFor="config-provider">Provider</label>
        <select id="config-provider" value={providerId} onChange={(e) => setProviderId(e.target.value)} required>
          <option value="">choose…</option>
          {(providers.items ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <label htmlFor="config-model">Model</label>
        <input id="config-model" value={model} onChange={(e) => setModel(e.target.value)} required />
        <button type="submit">Add model config</button>
      </form>
      <SectionError error={error} />
      <SettingsTable columns={["Name", "Model", "Default", ""]}>
        {(items ?? []).map((c) => (
          <tr key={c.id} data-model-config={c.model}>
            <td>{c.display_name}</td>
            <td>{c.model}</td>
            <td>{c.is_default ? "default" : ""}</td>
            <td>
              <button
                type="button"
                aria-label={`Delete ${c.model}`}
                onClick={() => void act(() => client.deleteModelConfig({ organization: organizationId, id: c.id }))}
              >
                Delete
              </button>
            </td>
          </tr>
        ))}
      </SettingsTable>
    </section>
  );
}
