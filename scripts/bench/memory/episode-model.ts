/**
 * P5's model: an OpenAI Chat Completions stand-in whose streamed reply is one large episode, the
 * same for chatd and for the baseline Durable Object. Run as a child process so that the bench's
 * thousand client sockets never delay its writes:
 *
 *   node --import tsx scripts/bench/memory/episode-model.ts --parts 1000 --part-chars 970 --delay-ms 10
 *
 * Prints `listening on <port>`. A streaming request whose last user message contains "warm" gets a
 * ten-part reply (warm-ups); every other one the episode: `--parts` text deltas of `--part-chars`
 * characters, `--delay-ms` apart. Non-streaming requests (titles) get a short text.
 */
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import { parseBenchArgs } from "../common/parse-bench-args";

const USAGE = `usage: node --import tsx scripts/bench/memory/episode-model.ts [options]
  --port N         0 picks a free one (default 0)
  --parts N        text deltas in the episode (default 1000)
  --part-chars N   characters per delta (default 970)
  --delay-ms N     gap between deltas (default 10)`;

const { port, parts, partChars, delayMs } = parseBenchArgs(
  USAGE,
  {
    port: { type: "string", default: "0" },
    parts: { type: "string", default: "1000" },
    "part-chars": { type: "string", default: "970" },
    "delay-ms": { type: "string", default: "10" },
  },
  (values) => ({
    port: Number(values.port),
    parts: Number(values.parts),
    partChars: Number(values["part-chars"]),
    delayMs: Number(values["delay-ms"]),
  }),
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Part `i`'s text: its number, then filler, exactly `chars` long. */
function partText(i: number, chars: number): string {
  const head = ` [${i}] `;
  return (head + "lorem ipsum dolor sit amet ".repeat(Math.ceil(chars / 27))).slice(0, chars);
}

interface Body {
  stream?: boolean;
  model?: string;
  messages?: { role: string; content: unknown }[];
}

async function stream(res: ServerResponse, body: Body, n: number, chars: number, delay: number): Promise<void> {
  const base = {
    id: `chatcmpl-${Date.now()}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "fake",
  };
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  const write = async (chunk: unknown) => {
    if (!res.write(`data: ${JSON.stringify(chunk)}\n\n`)) await once(res, "drain");
  };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  await write({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
  for (let i = 0; i < n && !closed; i++) {
    if (delay > 0 && i > 0) await sleep(delay);
    await write({ ...base, choices: [{ index: 0, delta: { content: partText(i, chars) }, finish_reason: null }] });
  }
  await write({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  await write({ ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: n, total_tokens: n + 1 } });
  res.end("data: [DONE]\n\n");
}

const server = createServer(async (req, res) => {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  if (!req.url?.endsWith("/chat/completions")) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "not found" } }));
    return;
  }
  const body = JSON.parse(raw || "{}") as Body;
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-title",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? "fake",
        choices: [{ index: 0, message: { role: "assistant", content: "Short title" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      }),
    );
    return;
  }
  const last = JSON.stringify(body.messages?.filter((m) => m.role === "user").at(-1)?.content ?? "");
  if (last.includes("warm")) await stream(res, body, 10, 20, 0);
  else await stream(res, body, parts, partChars, delayMs);
});
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening on ${typeof address === "object" && address ? address.port : 0}\n`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
