/** The chat list's search string (`GET /chats?q=`): Coder's `key:value` filters and free text. */
import { describe, expect, it } from "vitest";
import { CHAT_SEARCH_MAX_CHARS, CHAT_SEARCH_MAX_WORDS, ChatSearchError, parseChatSearch } from "../../../src/chats/chat-search";

describe("parseChatSearch", () => {
  it("reads archived and free text, quotes keeping spaces", () => {
    expect(parseChatSearch("")).toEqual({ titleWords: [] });
    expect(parseChatSearch("  archived:false  ")).toEqual({ archived: false, titleWords: [] });
    expect(parseChatSearch("ARCHIVED:true deploy")).toEqual({ archived: true, titleWords: ["deploy"] });
    expect(parseChatSearch('archived:"false" "release notes" v2')).toEqual({ archived: false, titleWords: ["release notes", "v2"] });
    // A quoted term is text even with a colon in it.
    expect(parseChatSearch('"ratio 1:2"')).toEqual({ titleWords: ["ratio 1:2"] });
    // The same filter twice with one value is allowed.
    expect(parseChatSearch("archived:true archived:true")).toEqual({ archived: true, titleWords: [] });
    // Coder's sidebar read/unread filter, as it sends it.
    expect(parseChatSearch("archived:false has_unread:true")).toEqual({ archived: false, hasUnread: true, titleWords: [] });
    expect(parseChatSearch("has_unread:false")).toEqual({ hasUnread: false, titleWords: [] });
  });

  it("refuses, naming the term: unknown keys, bad values, contradictions, unclosed quotes, too much", () => {
    const refused = (q: string) => {
      try {
        parseChatSearch(q);
      } catch (err) {
        expect(err).toBeInstanceOf(ChatSearchError);
        return (err as ChatSearchError).term;
      }
      throw new Error(`accepted ${q}`);
    };
    expect(refused("owner:me")).toBe("owner:me");
    expect(refused("archived:maybe")).toBe("archived:maybe");
    expect(refused("archived:")).toBe("archived:");
    expect(refused("archived:true archived:false")).toBe("archived:false");
    expect(refused("has_unread:yes")).toBe("has_unread:yes");
    expect(refused("has_unread:true has_unread:false")).toBe("has_unread:false");
    expect(refused('"unclosed phrase')).toBe('"unclosed phrase');
    expect(refused(Array.from({ length: CHAT_SEARCH_MAX_WORDS + 1 }, (_, i) => `w${i}`).join(" "))).toBe(`w${CHAT_SEARCH_MAX_WORDS}`);
    refused("x".repeat(CHAT_SEARCH_MAX_CHARS + 1));
  });
});
