/**
 * Which attachments a transport takes as file content (spec: "the Responses API natively accepts
 * only images and PDFs"). Read from what the AI SDK providers in this build convert; anything else
 * reaches the model as a text placeholder naming the file. Images are limited to the four formats
 * every provider documents: the SDK would pass any `image/*` on, and a provider's 400 for, say,
 * image/tiff would fail the turn on every retry.
 *
 * | transport                | images | PDF | text/*                                   |
 * |--------------------------|--------|-----|------------------------------------------|
 * | OpenAI Responses         | yes    | yes | no                                       |
 * | OpenAI Chat Completions  | yes    | yes | no (the SDK refuses non-image/PDF files) |
 * | Anthropic Messages       | yes    | yes | text/plain only (a text document)        |
 * | OpenAI-compatible chat   | yes    | yes | yes (the SDK inlines it as a text part)  |
 *
 * A file the provider would refuse for its size is not sent either (fileSizeLimit): a 400 for it
 * would come back on every turn of the chat, since the message stays in history.
 */
import type { ModelTransport } from "./transport";

export const MODEL_IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function acceptsFileMediaType(transport: ModelTransport, mediaType: string): boolean {
  const type = mediaType.toLowerCase();
  if (MODEL_IMAGE_TYPES.has(type) || type === "application/pdf") return true;
  switch (transport) {
    case "anthropic-messages":
      return type === "text/plain";
    case "openai-compatible-chat":
      return type.startsWith("text/");
    case "openai-responses":
    case "openai-chat":
      return false;
  }
}

/**
 * Anthropic refuses an image over 5 MiB of base64 ("image exceeds 5 MB maximum"): 3/4 of that in
 * bytes. Other limits (OpenAI's 50 MB per request, Anthropic's 32 MB per request) are above what
 * the prompt budget (src/chat-worker/prompt-files.ts) lets through.
 */
export const ANTHROPIC_MAX_IMAGE_BYTES = (5 * 1024 * 1024 * 3) / 4;

/** The largest file of this type the transport takes as content, in bytes (Infinity: no own limit). */
export function fileSizeLimit(transport: ModelTransport, mediaType: string): number {
  if (transport === "anthropic-messages" && MODEL_IMAGE_TYPES.has(mediaType.toLowerCase())) return ANTHROPIC_MAX_IMAGE_BYTES;
  return Number.POSITIVE_INFINITY;
}
