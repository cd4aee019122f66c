// Models are shared across calls (src/llm/shared-models.ts) while each call keeps its own fetch and
// headers: concurrent calls on one shared model, against the fake model server over HTTP.
import { describe, expect, it } from "vitest";
import { buildPrompt } from "../../src/llm/prompt";
import { modelClientFor } from "../../src/llm/provider";
import { runModelStep, type StepOutcome } from "../../src/llm/step";
import { fakeProvider, messageRow, modelConfigRow } from "./support/model-rows";

const provider = fakeProvider({ type: "openai-compatible" });
const config = modelConfigRow(provider);

/** A fetch that records the prompt text and the x-owner header of every request it sends. */
function recordingFetch(): { fetch: typeof fetch; prompts: string[]; owners: (string | null)[] } {
  const prompts: string[] = [];
  const owners: (string | null)[] = [];
  return {
    prompts,
    owners,
    fetch: async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { messages: { content: string | { text: string }[] }[] };
      const last = body.messages.at(-1)?.content;
      prompts.push(typeof last === "string" ? last : (last?.map((p) => p.text).join("") ?? ""));
      owners.push(new Headers(init?.headers).get("x-owner"));
      return fetch(input, init);
    },
  };
}

async function echo(client: ReturnType<typeof modelClientFor>, text: string): Promise<string> {
  const outcome: StepOutcome = await runModelStep({
    model: client.model,
    prompt: buildPrompt({ chat: { systemPrompt: null }, history: [messageRow("user", [{ type: "text", text }])] }),
    abortSignal: new AbortController().signal,
    onPart: () => {},
  });
  if (outcome.kind !== "response") throw new Error(`expected a response, got ${outcome.kind}`);
  return outcome.assistant.map((p) => (p.type === "text" ? p.text : "")).join("");
}

describe("shared models", () => {
  it("builds one model per provider key and model id, whatever the headers", () => {
    const a = modelClientFor(provider, config, { headers: { "x-owner": "a" } });
    const b = modelClientFor(provider, config, { headers: { "x-owner": "b" } });
    const otherKey = modelClientFor({ ...provider, apiKey: "another key" }, config);
    const otherModel = modelClientFor(provider, { ...config, model: "another-model" });
    expect(Object.getPrototypeOf(b.model)).toBe(Object.getPrototypeOf(a.model));
    expect(Object.getPrototypeOf(otherKey.model)).not.toBe(Object.getPrototypeOf(a.model));
    expect(Object.getPrototypeOf(otherModel.model)).not.toBe(Object.getPrototypeOf(a.model));
    expect(otherModel.model.modelId).toBe("another-model");
  });

  it("sends each of two concurrent calls through its own fetch, with its own headers", async () => {
    const first = recordingFetch();
    const second = recordingFetch();
    const clientA = modelClientFor(provider, config, { fetch: first.fetch, headers: { "x-owner": "a" } });
    const clientB = modelClientFor(provider, config, { fetch: second.fetch, headers: { "x-owner": "b" } });
    expect(Object.getPrototypeOf(clientB.model)).toBe(Object.getPrototypeOf(clientA.model));

    const [a, b] = await Promise.all([echo(clientA, "first caller"), echo(clientB, "second caller")]);
    expect([a, b]).toEqual(["first caller", "second caller"]);
    expect([first.prompts, first.owners]).toEqual([["first caller"], ["a"]]);
    expect([second.prompts, second.owners]).toEqual([["second caller"], ["b"]]);
  });

  it("does not lend a call's fetch to a call made inside it without one", async () => {
    const outer = recordingFetch();
    let nested: string | undefined;
    const client = modelClientFor(provider, config, {
      fetch: async (input, init) => {
        // A call of its own, started while the outer call's request is in flight.
        nested ??= await echo(modelClientFor(provider, config), "nested call");
        return outer.fetch(input, init);
      },
    });
    expect(await echo(client, "outer call")).toBe("outer call");
    expect(nested).toBe("nested call");
    expect(outer.prompts).toEqual(["outer call"]);
  });
});
