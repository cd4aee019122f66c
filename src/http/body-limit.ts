/**
 * Request body size limits, answered as 413 `payload_too_large` through the one error mapping.
 * hono's bodyLimit checks Content-Length up front and counts a streamed body as it arrives.
 */
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./errors";

/** Every JSON body: generous for chat content, far below what would hurt a Worker. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export function limitBody(maxBytes: number) {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError(413, "payload_too_large", "Request body too large.", `The limit is ${maxBytes} bytes.`);
    },
  });
}

export const jsonBodyLimit = limitBody(JSON_BODY_LIMIT_BYTES);
