/**
 * A finished span as the exporter and the turn log see it: plain data, times in epoch
 * milliseconds. Ids are the W3C/OTLP sizes (16-byte trace, 8-byte span) in lowercase hex.
 */
export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

export interface SpanContext {
  traceId: string;
  spanId: string;
}

export interface SpanRecord extends SpanContext {
  parentSpanId: string | null;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  /** Set only for a real failure: the span's status is error with this message. */
  error: string | null;
}

function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let out = "";
  for (const b of buf) out += b.toString(16).padStart(2, "0");
  return out;
}

export const newTraceId = () => randomHex(16);
export const newSpanId = () => randomHex(8);
