/**
 * `GET /chats?q=`: the chat list's search string, in the syntax Coder's clients send. Terms are
 * separated by spaces; `key:value` is a filter and anything else is free text that must appear in
 * the title. Double quotes keep spaces inside one term (`"release notes"`, `archived:"true"`).
 * Only the keys below are known: an unknown key is refused rather than ignored, so a client
 * never mistakes an unfiltered list for a filtered one. Pure: no I/O.
 */

/** What a search string asks of the list. */
export interface ChatSearch {
  archived?: boolean;
  /** Coder's read/unread filter: only chats whose has_unread is this. */
  hasUnread?: boolean;
  /** Words that must each appear in the title, case-insensitively. */
  titleWords: string[];
}

/** Bounds on what one search string may hold: it becomes one `ILIKE` per word. */
export const CHAT_SEARCH_MAX_CHARS = 256;
export const CHAT_SEARCH_MAX_WORDS = 8;

/** A term the search syntax does not accept; `term` is the offending term as written. */
export class ChatSearchError extends Error {
  override name = "ChatSearchError";
  constructor(
    readonly term: string,
    readonly detail: string,
  ) {
    super(`search term ${JSON.stringify(term)}: ${detail}`);
  }
}

export function parseChatSearch(q: string): ChatSearch {
  if (q.length > CHAT_SEARCH_MAX_CHARS) throw new ChatSearchError(q.slice(0, 32), `at most ${CHAT_SEARCH_MAX_CHARS} characters`);
  const search: ChatSearch = { titleWords: [] };
  for (const term of splitTerms(q)) {
    const colon = term.raw.indexOf(":");
    if (colon < 0 || term.quotedKey) {
      if (search.titleWords.length === CHAT_SEARCH_MAX_WORDS)
        throw new ChatSearchError(term.raw, `at most ${CHAT_SEARCH_MAX_WORDS} free-text words`);
      search.titleWords.push(term.text);
      continue;
    }
    const key = term.raw.slice(0, colon).toLowerCase();
    const value = unquote(term.raw.slice(colon + 1));
    switch (key) {
      case "archived":
      case "has_unread": {
        if (value !== "true" && value !== "false") throw new ChatSearchError(term.raw, `${key} is true or false`);
        const wanted = value === "true";
        const field = key === "archived" ? "archived" : "hasUnread";
        if (search[field] !== undefined && search[field] !== wanted)
          throw new ChatSearchError(term.raw, `${key} is given twice with different values`);
        search[field] = wanted;
        break;
      }
      default:
        throw new ChatSearchError(term.raw, `unknown filter ${JSON.stringify(key)}; known: archived, has_unread`);
    }
  }
  return search;
}

interface Term {
  /** As written, quotes included. */
  raw: string;
  /** Without its quotes: the text a free-text term searches for. */
  text: string;
  /** The term opened with a quote, so a colon inside it is text, not a filter. */
  quotedKey: boolean;
}

/** Splits on unquoted whitespace; an unclosed quote is refused rather than guessed at. */
function splitTerms(q: string): Term[] {
  const terms: Term[] = [];
  let raw = "";
  let inQuotes = false;
  const flush = () => {
    if (raw.length > 0) terms.push({ raw, text: unquote(raw), quotedKey: raw.startsWith('"') });
    raw = "";
  };
  for (const ch of q) {
    if (ch === '"') inQuotes = !inQuotes;
    if (!inQuotes && /\s/.test(ch)) flush();
    else raw += ch;
  }
  if (inQuotes) throw new ChatSearchError(raw, "unclosed quote");
  flush();
  return terms.filter((t) => t.text.length > 0 || t.raw.includes(":"));
}

function unquote(s: string): string {
  return s.replaceAll('"', "");
}
