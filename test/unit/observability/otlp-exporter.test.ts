/**
 * The OTLP/HTTP JSON export against a real HTTP receiver (scripts/lib/otlp-receiver.ts): spans
 * and metric deltas arrive as sent; the buffer stays bounded while the collector is down.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOtlpReceiver, type OtlpReceiver } from "../../../scripts/lib/otlp-receiver";
import { Metrics, STAGE_DURATION, TTFT } from "../../../src/observability/metrics";
import { MAX_BUFFERED, OtlpExporter } from "../../../src/observability/otlp-exporter";
import { StageTracing } from "../../../src/observability/stage-tracing";

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

const identity = { scope: "turn" as const, chatKind: "root" as const };
const model = { provider: "openai-chat", providerType: "openai", model: "gpt-x", reasoningEffort: "low" };

describe("OtlpExporter", () => {
  it("sends spans with their parents, attributes and error status, and the metric deltas", async () => {
    const metrics = new Metrics();
    const exporter = new OtlpExporter({ endpoint: receiver.url, headers: { "x-api-key": "k" }, metrics });
    const tracer = new StageTracing(exporter, metrics);
    const stream = tracer.start("stream", { identity, model });
    const ttft = tracer.start("time_to_first_token", { identity, model, parent: stream.context });
    ttft.end();
    stream.end({ error: new Error("cut") });
    await exporter.flush();

    const got = receiver.spans.filter((s) => s.traceId === stream.traceId);
    expect(got.map((s) => s.name).sort()).toEqual(["stream", "time_to_first_token"]);
    const s = got.find((x) => x.name === "stream")!;
    expect(s).toMatchObject({ parentSpanId: null, error: "cut" });
    expect(s.attributes).toMatchObject({
      provider: "openai-chat",
      provider_type: "openai",
      model: "gpt-x",
      reasoning_effort: "low",
      scope: "turn",
    });
    expect(got.find((x) => x.name === "time_to_first_token")!.parentSpanId).toBe(stream.spanId);
    expect(receiver.points.filter((p) => p.name === STAGE_DURATION && p.attributes.stage === "stream")[0]?.value).toBe(1);
    expect(receiver.points.some((p) => p.name === TTFT && p.attributes.model === "gpt-x")).toBe(true);
    // Deltas: a second flush with nothing new sends no metrics again.
    const before = receiver.points.length;
    await exporter.flush();
    expect(receiver.points.length).toBe(before);
  });

  it("sends what was buffered during a flush in flight with one more post after it", async () => {
    const metrics = new Metrics();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let posts = 0;
    const exporter = new OtlpExporter({
      endpoint: receiver.url,
      headers: {},
      metrics,
      // The first post waits until released, so the second span ends while it is in flight.
      fetch: async (input, init) => {
        if (posts++ === 0) await held;
        return fetch(input, init);
      },
    });
    const tracer = new StageTracing(exporter, metrics);
    const turn = tracer.start("commit", { identity });
    turn.end();
    const first = exporter.flush();
    const title = tracer.start("stream", { identity, model });
    title.end();
    const second = exporter.flush();
    const third = exporter.flush();
    release();
    await Promise.all([first, second, third]);
    const traces = new Set(receiver.spans.map((s) => s.traceId));
    expect(traces.has(turn.traceId)).toBe(true);
    expect(traces.has(title.traceId)).toBe(true);
  });

  it("keeps at most MAX_BUFFERED spans while the collector is down, and says how many it dropped", async () => {
    const metrics = new Metrics();
    const exporter = new OtlpExporter({ endpoint: "http://127.0.0.1:9", headers: {}, metrics });
    const tracer = new StageTracing(exporter, metrics);
    for (let i = 0; i < MAX_BUFFERED + 10; i++) tracer.start("commit", { identity }).end();
    expect(exporter.dropped).toBe(10);
    await exporter.flush(); // refused: logged, not thrown
    tracer.start("commit", { identity }).end();
    expect(exporter.dropped).toBe(10);
  });
});
