-- Provider API keys and MCP credentials are sealed with AES-256-GCM (docs/hardening.md). Beside each
-- sealed column, the id of the key its value is sealed with. Rows written before this migration keep
-- their plaintext with a NULL key id: readers take it as is, the next write or
-- `npm run secrets:rotate` seals it. Nothing is rewritten here, so a Worker still on the previous
-- version reads every row it wrote.
ALTER TABLE chat_providers ADD COLUMN api_key_sealed_with text;
ALTER TABLE mcp_servers ADD COLUMN bearer_token_sealed_with text;
ALTER TABLE mcp_servers ADD COLUMN headers_sealed_with text;
