/**
 * Request signing: `X-Chat-Hook-Signature: sha256=<hex>` is HMAC-SHA256 over the exact body bytes
 * with the deployment's hook secret. The body carries `sent_at`, which the timestamp header
 * repeats, so a consumer can refuse old replays by checking the signed value.
 */
import { hex } from "./event-id";

export const SIGNATURE_HEADER = "X-Chat-Hook-Signature";
export const TIMESTAMP_HEADER = "X-Chat-Hook-Timestamp";
export const EVENT_HEADER = "X-Chat-Hook-Event";
export const EVENT_ID_HEADER = "X-Chat-Hook-Event-Id";

export async function signBody(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `sha256=${hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)))}`;
}
