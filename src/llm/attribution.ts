/**
 * How a request names its chat owner to the provider (spec "Gateway attribution keys"): the owner's
 * synthetic key id goes in Cloudflare AI Gateway's `cf-aig-metadata` header (JSON, logged with the
 * request) and in the end-user field of the body (`user` for OpenAI and OpenAI-compatible bodies;
 * src/llm/provider-options.ts). Pure.
 */

export const AIG_METADATA_HEADER = "cf-aig-metadata";

export interface Attribution {
  /** The owner's synthetic api_keys id: stable for the user's lifetime. */
  keyId: string;
  /** Headers for the model client. */
  headers: Record<string, string>;
  /** The body's end-user id. */
  user: string;
}

export function attributionRequest(keyId: string, chatId: string): Attribution {
  return { keyId, headers: { [AIG_METADATA_HEADER]: JSON.stringify({ chatd_key_id: keyId, chat_id: chatId }) }, user: keyId };
}
