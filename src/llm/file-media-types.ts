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
