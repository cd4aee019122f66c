// Fake OpenAI Chat Completions server for the relay bench, adapted from acceptance/fake-openai.mjs.
// Every streaming request is answered at once with `tokens` text chunks, written as fast as the
// socket takes them. Each chunk's text carries its own write time, ` [seq@µs]`, in microseconds
// on the machine's monotonic clock (process.hrtime, CLOCK_MONOTONIC, the same in every process
// on this machine), so a client here can compute relay latency without any clock sync.
// Non-streaming requests (titles, summaries) get a short text.
//
// In the driver it runs in a worker thread, so that the clients' event loop never delays a
// write. Standalone, for pointing another service at it:
//   node bench/fake-model.mjs --port 8790 --tokens 2000 [--delay-ms 0]
import http from "node:http";
import { once } from "node:events";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { pathToFileURL } from "node:url";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const nowUs = () => Number(process.hrtime.bigint() / 1000n);
/** Matches one stamped token in streamed text: [seq@µs]. */
export const STAMP = /\[(\d+)@(\d+)\]/g;

export async function startFakeModel({ port = 0, tokens = 2000, delayMs = 0, onStream = () => {} } = {}) {
  const state = { tokens, delayMs };
  let seq = 0;
  const server = http.createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    let body = {};
    try {
      body = JSON.parse(raw || "{}");
    } catch {
      /* keep {} */
    }
    if (!req.url.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { message: "not found" } }));
    }
    const id = `chatcmpl-${++seq}`;
    const base = { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model ?? "fake" };
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created: base.created,
          model: base.model,
          choices: [{ index: 0, message: { role: "assistant", content: "Short title" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        }),
      );
    }
    let closed = false;
    res.on("close", () => {
      closed = true;
    });
    const write = async (obj) => {
      if (!res.write(`data: ${JSON.stringify(obj)}\n\n`)) await once(res, "drain");
    };
    const { tokens: n, delayMs } = state;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    await write({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    const firstUs = nowUs();
    for (let i = 0; i < n && !closed; i++) {
      if (delayMs && i) await sleep(delayMs);
      await write({ ...base, choices: [{ index: 0, delta: { content: ` [${i}@${nowUs()}]` }, finish_reason: null }] });
    }
    const lastUs = nowUs();
    await write({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    await write({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: n, total_tokens: 10 + n } });
    res.end("data: [DONE]\n\n");
    onStream({ id, tokens: n, firstUs, lastUs, closed });
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    configure: (c) => Object.assign(state, c),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(r);
      }),
  };
}

/** The same server in a worker thread. `streams` collects what onStream reports. */
export async function startFakeModelThread(opts = {}) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { fakeModel: opts } });
  const streams = [];
  let acked = () => {};
  const ready = new Promise((resolve, reject) => {
    worker.on("error", reject);
    worker.on("message", (m) => {
      if (m.type === "ready") resolve(m.baseURL);
      else if (m.type === "stream") streams.push(m.stream);
      else if (m.type === "configured") acked();
    });
  });
  const baseURL = await ready;
  return {
    baseURL,
    streams,
    configure: (c) =>
      new Promise((r) => {
        acked = r;
        worker.postMessage({ type: "configure", c });
      }),
    close: async () => {
      worker.postMessage({ type: "close" });
      await once(worker, "exit");
    },
  };
}

if (!isMainThread && workerData?.fakeModel) {
  const fake = await startFakeModel({ ...workerData.fakeModel, onStream: (stream) => parentPort.postMessage({ type: "stream", stream }) });
  parentPort.on("message", async (m) => {
    if (m.type === "configure") {
      fake.configure(m.c);
      parentPort.postMessage({ type: "configured" });
    }
    if (m.type === "close") {
      await fake.close();
      parentPort.close();
    }
  });
  parentPort.postMessage({ type: "ready", baseURL: fake.baseURL });
} else if (isMainThread && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (k, d) => {
    const i = process.argv.indexOf(`--${k}`);
    return i > 0 ? Number(process.argv[i + 1]) : d;
  };
  const fake = await startFakeModel({
    port: arg("port", 0),
    tokens: arg("tokens", 2000),
    delayMs: arg("delay-ms", 0),
    onStream: (s) => console.log(`streamed ${s.tokens} tokens in ${((s.lastUs - s.firstUs) / 1000).toFixed(1)} ms`),
  });
  console.log(`fake model at ${fake.baseURL}`);
}
