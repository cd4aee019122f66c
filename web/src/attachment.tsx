/**
 * A file part of a message. The page never opens a file as a document of its own origin, where a
 * script in it would run as the app: a raster image is drawn as an <img> (which runs nothing), and
 * every file is saved as a download, never shown (docs/hardening.md "Files and the web app").
 */
import { useEffect, useState } from "react";
import type { ChatdClient, ChatMessagePart } from "../../client/src/index";
import { isInlineImage, mediaTypeEssence } from "../../src/files/inert-media-types";

type FilePart = Extract<ChatMessagePart, { type: "file" }>;

export function Attachment({ part, client }: { part: FilePart; client: ChatdClient }) {
  const src = useImageUrl(part, client);
  return (
    <div className="file">
      {src && <img className="attachment-image" src={src} alt={part.name} />}
      <button type="button" className="link file" onClick={() => download(part, client)}>
        📎 {part.name}
      </button>
    </div>
  );
}

/** A blob: URL of the image while the part is on screen; null for any other type. */
function useImageUrl(part: FilePart, client: ChatdClient): string | null {
  const [src, setSrc] = useState<string | null>(null);
  const image = isInlineImage(part.media_type);
  useEffect(() => {
    if (!image) return;
    let url: string | null = null;
    let live = true;
    client
      .downloadFile({ file: part.file_id })
      .then((blob) => {
        if (!live) return;
        url = URL.createObjectURL(new Blob([blob], { type: mediaTypeEssence(part.media_type) }));
        setSrc(url);
      })
      // The name still downloads it; an image that cannot be fetched is simply not drawn.
      .catch(() => {});
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [image, client, part.file_id, part.media_type]);
  return src;
}

async function download(part: FilePart, client: ChatdClient): Promise<void> {
  const blob = await client.downloadFile({ file: part.file_id });
  // octet-stream and `download`: the browser saves the bytes under the name, whatever they are.
  const url = URL.createObjectURL(new Blob([blob], { type: "application/octet-stream" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = part.name;
  a.click();
  // The save has started from the URL by then; the timer only frees the memory.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
