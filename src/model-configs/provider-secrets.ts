/**
 * A provider's API key at rest (docs/hardening.md): sealed into `chat_providers.api_key`, its key id
 * in `api_key_sealed_with`, bound to the provider's row. Only the model client's builder opens it.
 */
import type { chatProviders } from "../db/schema/models";
import type { KeyRing } from "../secrets/key-ring";
import { openText, type SealedColumn, sealText } from "../secrets/sealed-column";

type ProviderRow = typeof chatProviders.$inferSelect;

export const PROVIDER_API_KEY: SealedColumn = {
  table: "chat_providers",
  column: "api_key",
  keyColumn: "api_key_sealed_with",
  shape: "text",
  // Providers belong to the deployment, not to an organization.
  tenantColumn: null,
};

/** The columns to write for `apiKey` on provider `id`: sealed with the current key, or both null. */
export async function sealedApiKey(
  keys: KeyRing,
  id: string,
  apiKey: string | null,
): Promise<Pick<ProviderRow, "apiKey" | "apiKeySealedWith">> {
  // An empty key is no key: sealed, it would look like one to isProviderAvailable.
  const stored = await sealText(keys, PROVIDER_API_KEY, { id, tenant: null }, apiKey || null);
  return { apiKey: stored.value, apiKeySealedWith: stored.keyId };
}

/** The provider with its API key in the clear, for building its client; throws a SecretsError when it cannot be opened. */
export async function openedProvider(keys: KeyRing, provider: ProviderRow): Promise<ProviderRow> {
  const apiKey = await openText(
    keys,
    PROVIDER_API_KEY,
    { id: provider.id, tenant: null },
    {
      value: provider.apiKey,
      keyId: provider.apiKeySealedWith,
    },
  );
  return { ...provider, apiKey, apiKeySealedWith: null };
}
