// Provider web search, as the two wires that have it run it server-side: OpenAI Responses (a
// `web_search_call` output item, `url_citation` annotations) and Anthropic Messages (a
// `server_tool_use` block, a `web_search_tool_result` block, `web_search_result_location`
// citations). `/web-search <query> :: <text>` searches when the request offers the provider's
// tool; results are deterministic, derived from the query.
//
// What the client sends back on the next request is checked as the real APIs check it: an
// Anthropic result must carry the encrypted content this server issued (signed, so it survives a
// restart like the real opaque blob), and must follow its server_tool_use in the same assistant
// message; an OpenAI `item_reference` must name an item this server stored (a response made with
// `store: false` stores none), and a `web_search_call` item must have the API's shape.

import { createHmac } from "node:crypto";
import { BadRequestError, isRecord, type ReplyWebSearch, stringField, type WebSearchOffer, type WebSearchResult } from "./wire";

export type { ReplyWebSearch, WebSearchOffer, WebSearchResult };

const RESULTS_PER_SEARCH = 2;
const SIGNING_KEY = "fake-model-web-search";
const ANTHROPIC_ERROR_CODES = new Set(["too_many_requests", "invalid_input", "max_uses_exceeded", "query_too_long", "unavailable"]);
const RESPONSES_ACTIONS = new Set(["search", "open_page", "find_in_page"]);
/** Stored Responses items remembered, newest kept: a bound on the process's memory. */
const MAX_STORED_ITEMS = 10_000;

function slug(query: string): string {
  return (
    query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "query"
  );
}

export function searchResults(query: string): WebSearchResult[] {
  return Array.from({ length: RESULTS_PER_SEARCH }, (_, i) => ({
    url: `https://search.example/${slug(query)}/${i + 1}`,
    title: `Result ${i + 1} for ${query}`,
    pageAge: "2 days ago",
  }));
}

export function webSearchItemId(search: ReplyWebSearch): string {
  return `ws_${search.callNumber}`;
}

export function serverToolUseId(search: ReplyWebSearch): string {
  return `srvtoolu_${search.callNumber}`;
}

function sign(payload: string): string {
  return createHmac("sha256", SIGNING_KEY).update(payload).digest("base64url").slice(0, 22);
}

/** Anthropic's opaque page content: here the url signed, so a forged or altered one is refused. */
export function encryptedContent(result: WebSearchResult): string {
  const payload = Buffer.from(result.url).toString("base64url");
  return `fakeenc_${payload}.${sign(payload)}`;
}

function validEncryptedContent(value: unknown, url: string): boolean {
  if (typeof value !== "string" || !value.startsWith("fakeenc_")) return false;
  const [payload, signature] = value.slice("fakeenc_".length).split(".");
  return payload !== undefined && signature === sign(payload) && Buffer.from(payload, "base64url").toString() === url;
}

/** The opaque index of a citation into a result (Anthropic's `encrypted_index`). */
export function encryptedIndex(result: WebSearchResult): string {
  return `fakeidx_${sign(result.url)}`;
}

/** Whether `tools` (a request's) offer the provider's web search, and how. */
export function webSearchOffer(tools: unknown, wire: "openai_responses" | "anthropic", include: unknown): WebSearchOffer | undefined {
  if (!Array.isArray(tools)) return undefined;
  const offered = tools.filter(isRecord).some((tool) => {
    const type = stringField(tool, "type") ?? "";
    return wire === "openai_responses"
      ? type === "web_search" || type === "web_search_preview"
      : type.startsWith("web_search_") && tool["name"] === "web_search";
  });
  if (!offered) return undefined;
  return { includeSources: Array.isArray(include) && include.includes("web_search_call.action.sources") };
}

/** The Responses items a server stored, by id (responses made with `store: false` store none). */
export class StoredItems {
  readonly #ids = new Set<string>();

  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > MAX_STORED_ITEMS) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }
}

/** Responses `input`: item references must name stored items; web_search_call items must be well formed. */
export function checkResponsesInput(input: unknown, stored: { has(id: string): boolean }): void {
  if (!Array.isArray(input)) return;
  input.forEach((item, index) => {
    if (!isRecord(item)) return;
    const type = item["type"];
    if (type === "item_reference") {
      const id = stringField(item, "id");
      if (id === undefined || !stored.has(id)) throw new BadRequestError(`Item with id '${String(item["id"])}' not found.`);
    } else if (type === "web_search_call") {
      const action = item["action"];
      const problem =
        typeof item["id"] !== "string"
          ? "id"
          : typeof item["status"] !== "string"
            ? "status"
            : !isRecord(action) || !RESPONSES_ACTIONS.has(String(action["type"]))
              ? "action.type"
              : action["type"] === "search" && typeof action["query"] !== "string" && !Array.isArray(action["queries"])
                ? "action.query"
                : action["type"] !== "search" && typeof action["url"] !== "string"
                  ? "action.url"
                  : undefined;
      if (problem !== undefined) throw new BadRequestError(`Invalid value for 'input[${index}].${problem}' of a web_search_call item.`);
    }
  });
}

/**
 * Anthropic `messages`: server tool blocks only in assistant messages; each `server_tool_use` a web
 * search with a query, answered later in the same message by its `web_search_tool_result`, whose
 * results carry the encrypted content this server issued.
 */
export function checkAnthropicMessages(messages: readonly unknown[]): void {
  messages.forEach((message, m) => {
    if (!isRecord(message) || !Array.isArray(message["content"])) return;
    const blocks = message["content"].filter(isRecord);
    const at = (b: number) => `messages.${m}.content.${b}`;
    const open = new Map<string, number>();
    blocks.forEach((block, b) => {
      const type = block["type"];
      if (type !== "server_tool_use" && type !== "web_search_tool_result") return;
      if (message["role"] !== "assistant")
        throw new BadRequestError(`${at(b)}: \`${String(type)}\` blocks are only allowed in assistant messages`);
      if (type === "server_tool_use") {
        const id = stringField(block, "id") ?? "";
        const input = block["input"];
        if (!/^srvtoolu_\w+$/.test(id)) throw new BadRequestError(`${at(b)}.id: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'`);
        if (block["name"] !== "web_search") throw new BadRequestError(`${at(b)}.name: unknown server tool '${String(block["name"])}'`);
        if (!isRecord(input) || typeof input["query"] !== "string") throw new BadRequestError(`${at(b)}.input.query: Field required`);
        open.set(id, b);
        return;
      }
      const toolUseId = stringField(block, "tool_use_id") ?? "";
      if (!open.delete(toolUseId)) {
        throw new BadRequestError(
          `${at(b)}: \`web_search_tool_result\` block with tool_use_id \`${toolUseId}\` does not follow its \`server_tool_use\` block`,
        );
      }
      checkSearchResultContent(block["content"], at(b));
    });
    for (const [id, b] of open) {
      throw new BadRequestError(
        `${at(b)}: \`server_tool_use\` block with id \`${id}\` was found without a corresponding \`web_search_tool_result\` block`,
      );
    }
  });
}

function checkSearchResultContent(content: unknown, at: string): void {
  if (isRecord(content)) {
    if (content["type"] !== "web_search_tool_result_error" || !ANTHROPIC_ERROR_CODES.has(String(content["error_code"]))) {
      throw new BadRequestError(`${at}.content: invalid web search error`);
    }
    return;
  }
  if (!Array.isArray(content)) throw new BadRequestError(`${at}.content: Input should be a valid list`);
  content.forEach((result, r) => {
    if (!isRecord(result) || result["type"] !== "web_search_result" || typeof result["url"] !== "string") {
      throw new BadRequestError(`${at}.content.${r}: invalid web search result`);
    }
    if (!validEncryptedContent(result["encrypted_content"], result["url"])) {
      throw new BadRequestError(`${at}.content.${r}.encrypted_content: invalid encrypted content`);
    }
  });
}
