/**
 * Issue 36's MCP tool-search figure: the size of one model request whose chat has an MCP server
 * of N tools (200), offered every schema, against the same request with tool search on (the first
 * step: find_tools alone; the step after a search: find_tools plus the K tools it found, 8). See
 * docs/mcp.md#tool-search and docs/bench.md.
 *
 *   tsx scripts/bench/mcp-tool-search.ts [--tools 200] [--found 8] [--json FILE]
 *
 * Everything real but the model: the test MCP server's generated catalog (scripts/test-mcp/) over
 * Streamable HTTP, the service's own MCP session, tool naming and find_tools, the AI SDK building
 * each wire's request, and the fake model's request log reading the body's bytes. One request per
 * wire format and variant, with the same one-line prompt; "tools" is the body less the same
 * request offering no tool. Markdown on stdout.
 */
import { writeFileSync } from "node:fs";
import { modelTools } from "../../src/llm/tools";
import { buildPrompt } from "../../src/llm/prompt";
import { languageModelFor } from "../../src/llm/provider";
import { runModelStep } from "../../src/llm/step";
import { connectMcpServer } from "../../src/mcp/session";
import type { ModelConfigRow } from "../../src/model-configs/configs";
import type { ProviderRow, ProviderType } from "../../src/model-configs/providers";
import { mcpLocalTools, searchOffer } from "../../src/tools/mcp";
import { localToolRegistry } from "../../src/llm/tools";
import { FIND_TOOLS_NAME, rankTools } from "../../src/tools/find-tools";
import { startFakeModel } from "../fake-model/server";
import { startTestMcpServer } from "../test-mcp/server";
import { parseBenchArgs, wholeNumberOption } from "./common/parse-bench-args";

const USAGE = "tsx scripts/bench/mcp-tool-search.ts [--tools 200] [--found 8] [--json FILE]";

const options = parseBenchArgs(
  USAGE,
  { tools: { type: "string", default: "200" }, found: { type: "string", default: "8" }, json: { type: "string" } },
  (v) => ({
    tools: wholeNumberOption("tools", v.tools, 1, 1000),
    found: wholeNumberOption("found", v.found, 1, 20),
    json: v.json,
  }),
);

const WIRES: { name: string; type: ProviderType; model: string }[] = [
  { name: "OpenAI Chat Completions", type: "openai", model: "gpt-4o" },
  { name: "OpenAI Responses", type: "openai", model: "gpt-5" },
  { name: "Anthropic Messages", type: "anthropic", model: "claude-sonnet-4-6" },
];

function rows(baseUrl: string, type: ProviderType, model: string): { provider: ProviderRow; config: ModelConfigRow } {
  const now = new Date();
  const provider: ProviderRow = {
    id: crypto.randomUUID(),
    type,
    name: type,
    baseUrl,
    apiKey: "x",
    apiKeySealedWith: null,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  const config = {
    id: crypto.randomUUID(),
    organizationId: crypto.randomUUID(),
    providerId: provider.id,
    model,
    displayName: null,
    enabled: true,
    isDefault: true,
    contextLimit: null,
    compressionThreshold: null,
    options: {},
    inputPriceMicros: null,
    outputPriceMicros: null,
    cachedInputPriceMicros: null,
    reasoningPriceMicros: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  } as ModelConfigRow;
  return { provider, config };
}

const fake = await startFakeModel({ port: 0 });
const mcp = await startTestMcpServer();
try {
  const url = new URL(`/catalog/${options.tools}/mcp`, mcp.url).href;
  const session = await connectMcpServer(
    { id: "bench", name: "catalog", url, headers: { "X-Test-Header": mcp.headerValue }, bearerToken: mcp.token },
    { check: async () => {} },
  );
  const tools = mcpLocalTools([session], 65_536);
  const all = localToolRegistry(tools);
  const first = searchOffer([session], tools, new Set());
  // What one search for "calendar events" returns: the tools the next step is offered.
  const found = new Set(
    rankTools(
      "list calendar events",
      tools.map((t, i) => ({ name: t.name, description: session.tools[i]!.description ?? "" })),
      options.found,
    ).map((t) => t.name),
  );
  const after = searchOffer([session], tools, found);
  const chat = { unsafeDynamicTools: null };
  const variants = [
    { name: "no tools", set: undefined },
    { name: `every schema (${tools.length})`, set: modelTools(chat, all) },
    { name: "tool search, first step (find_tools)", set: modelTools(chat, localToolRegistry(first.tools), new Set(first.deferred)) },
    {
      name: `tool search, after a search (find_tools + ${found.size})`,
      set: modelTools(chat, localToolRegistry(after.tools), new Set(after.deferred)),
    },
  ];
  const results: { wire: string; variant: string; bodyBytes: number; toolBytes: number; tools: number }[] = [];
  for (const wire of WIRES) {
    const { provider, config } = rows(`${fake.url}/v1`, wire.type, wire.model);
    let baseline = 0;
    for (const variant of variants) {
      const tag = crypto.randomUUID();
      const prompt = buildPrompt({
        chat: { systemPrompt: null },
        history: [
          {
            id: 1,
            role: "user",
            content: [{ type: "text", text: `What is on my calendar today? ${tag}` }],
            deleted: false,
            modelOnly: false,
            compressed: false,
          },
        ],
      });
      const outcome = await runModelStep({
        model: languageModelFor(provider, config),
        prompt,
        tools: variant.set,
        abortSignal: new AbortController().signal,
        onPart: () => {},
      });
      if (outcome.kind !== "response") throw new Error("the model call was aborted");
      const logged = (await (await fetch(`${fake.url}/_requests?contains=${tag}`)).json()) as {
        requests: { bodyBytes: number; toolNames: string[] }[];
      };
      const request = logged.requests.at(-1)!;
      if (variant.set === undefined) baseline = request.bodyBytes;
      results.push({
        wire: wire.name,
        variant: variant.name,
        bodyBytes: request.bodyBytes,
        toolBytes: request.bodyBytes - baseline,
        tools: request.toolNames.length,
      });
      if (variant.name.startsWith("tool search") && !request.toolNames.includes(FIND_TOOLS_NAME))
        throw new Error("find_tools was not offered");
    }
  }
  await session.close();

  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const lines = [
    `MCP tool search: one request, an MCP server of ${tools.length} tools (scripts/test-mcp/catalog.ts)`,
    "",
    "| wire | request | tools offered | body | of which tools | against every schema |",
    "|---|---|---:|---:|---:|---:|",
  ];
  for (const wire of WIRES) {
    const every = results.find((r) => r.wire === wire.name && r.variant.startsWith("every schema"))!;
    for (const r of results.filter((x) => x.wire === wire.name)) {
      const share = r.variant === "no tools" ? "" : `${((r.toolBytes / every.toolBytes) * 100).toFixed(1)}%`;
      lines.push(`| ${r.wire} | ${r.variant} | ${r.tools} | ${kib(r.bodyBytes)} | ${kib(r.toolBytes)} | ${share} |`);
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  if (options.json) writeFileSync(options.json, JSON.stringify({ tools: tools.length, found: found.size, results }, null, 2));
} finally {
  await mcp.close();
  await fake.close();
}
