/**
 * Model output as Markdown (docs/hardening.md "Files and the web app"). The model's text is
 * whatever a prompt injection made it, so it is never HTML: marked turns the Markdown into HTML,
 * any raw HTML in it is shown as text, and DOMPurify then keeps only the tags marked makes and
 * links to http(s) and mailto. Links open in a new tab with no opener and no referrer; Markdown
 * images become links, so a reply cannot make the page fetch an address (and leak data in it).
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html: ({ text, block }) => (block ? `<p>${escapeHtml(text.trim()).replace(/\n/g, "<br>")}</p>` : escapeHtml(text)),
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
  },
});

const purify = DOMPurify();
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

// What marked writes, and nothing else: no img, svg, iframe, form, style or event attribute.
const SANITIZE = {
  ALLOWED_TAGS: [
    ...["p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code", "ul", "ol", "li", "input"],
    ...["strong", "em", "del", "a", "table", "thead", "tbody", "tr", "th", "td"],
  ],
  ALLOWED_ATTR: ["href", "title", "start", "class", "align", "type", "checked", "disabled"],
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
};

/** Safe HTML for `dangerouslySetInnerHTML`: the Markdown of `text`, sanitized. */
export function renderMarkdown(text: string): string {
  return purify.sanitize((marked.parse(text) as string).trim(), SANITIZE);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
