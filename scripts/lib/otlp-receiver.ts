/**
 * A small OTLP/HTTP (JSON) receiver for the dev stack and the tests: it keeps the spans and metric
 * points it is sent (the newest 20,000 spans), answers `GET /spans?trace_id=&name=&chat_id=` and
 * `GET /metrics` with them, and can print each finished turn as one line (npm run dev).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  error: string | null;
}

export interface ReceivedPoint {
  name: string;
  attributes: Record<string, string | number | boolean>;
  /** Histogram: count; counter: the delta. */
  value: number;
  sum?: number;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  close(): Promise<void>;
}

const MAX_SPANS = 20_000;

type OtlpValue = { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };

function attributes(list: OtlpAttribute[] | undefined): ReceivedSpan["attributes"] {
  const out: ReceivedSpan["attributes"] = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue);
  }
  return out;
}

const ms = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000;

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** `onTurn`: called with each chat_turn span and the spans of its trace received with it. */
export async function startOtlpReceiver(
  opts: { port?: number; onTurn?: (turn: ReceivedSpan, stages: ReceivedSpan[]) => void } = {},
): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://receiver");
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "POST" && url.pathname === "/v1/traces") {
      void bodyOf(req).then(
        (body) => {
          const batch: ReceivedSpan[] = [];
          // biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON shape, read field by field
          for (const rs of (body as any).resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? [])
              for (const s of ss.spans ?? [])
                batch.push({
                  traceId: s.traceId,
                  spanId: s.spanId,
                  parentSpanId: s.parentSpanId ?? null,
                  name: s.name,
                  startMs: ms(s.startTimeUnixNano),
                  endMs: ms(s.endTimeUnixNano),
                  attributes: attributes(s.attributes),
                  error: s.status?.code === 2 ? (s.status.message ?? "") : null,
                });
          spans.push(...batch);
          if (spans.length > MAX_SPANS) spans.splice(0, spans.length - MAX_SPANS);
          for (const turn of batch.filter((s) => s.name === "chat_turn"))
            opts.onTurn?.(
              turn,
              batch.filter((s) => s.traceId === turn.traceId && s !== turn),
            );
          answer(200, {});
        },
        () => answer(400, { error: "not OTLP JSON" }),
      );
      return;
    }
    if (req.method === "POST" && url.pathname === "/v1/metrics") {
      void bodyOf(req).then(
        (body) => {
          // biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON shape, read field by field
          for (const rm of (body as any).resourceMetrics ?? [])
            for (const sm of rm.scopeMetrics ?? [])
              for (const m of sm.metrics ?? []) {
                for (const p of m.histogram?.dataPoints ?? [])
                  points.push({ name: m.name, attributes: attributes(p.attributes), value: Number(p.count), sum: p.sum });
                for (const p of m.sum?.dataPoints ?? [])
                  points.push({ name: m.name, attributes: attributes(p.attributes), value: Number(p.asInt) });
              }
          answer(200, {});
        },
        () => answer(400, { error: "not OTLP JSON" }),
      );
      return;
    }
    if (req.method === "GET" && url.pathname === "/spans") {
      const traceIds = new Set(url.searchParams.getAll("trace_id"));
      const chatId = url.searchParams.get("chat_id");
      return answer(
        200,
        spans.filter((s) => (traceIds.size === 0 || traceIds.has(s.traceId)) && (chatId === null || s.attributes.chat_id === chatId)),
      );
    }
    if (req.method === "GET" && url.pathname === "/metrics") return answer(200, points);
    answer(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    points,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** One line per turn for a terminal: outcome, duration, and where the time went. */
export function turnLine(turn: ReceivedSpan, stages: readonly ReceivedSpan[]): string {
  const total = new Map<string, number>();
  for (const s of stages) total.set(s.name, (total.get(s.name) ?? 0) + (s.endMs - s.startMs));
  const parts = [...total].map(([name, d]) => `${name} ${Math.round(d)} ms`).join(", ");
  return `turn ${turn.attributes.chat_id ?? "?"} ${turn.attributes.turn_outcome} in ${Math.round(turn.endMs - turn.startMs)} ms: ${parts}`;
}
