/**
 * AI SDK models shared by every call of the isolate, one per distinct client (transport, base URL,
 * key, model id, headers). A model builds its response schemas when it is constructed, and zod
 * walks a new schema on its first parse: a model built per call paid both on every turn, once
 * between RecordGenerationAttempt and the model request and again on the stream's first chunk.
 *
 * What differs per call is the fetch (a turn's provider_attempt stages, a test's recorder), so it
 * is bound to the call, not the model: a shared model's requests go through `fetchOfCall`, which
 * takes the fetch of the call it runs in (withCallFetch), and the global fetch outside one.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Distinct clients kept; the least recently used goes first (a key or header change makes a new one). */
const MAX_SHARED_MODELS = 64;

const shared = new Map<string, object>();
const callFetch = new AsyncLocalStorage<typeof fetch | undefined>();

/** The fetch every shared model is built with. */
export const fetchOfCall: typeof fetch = (input, init) => (callFetch.getStore() ?? globalThis.fetch)(input, init);

/** The model built for `key`, built by `build` the first time (or again after eviction). */
export function sharedModel<M extends object>(key: string, build: () => M): M {
  const hit = shared.get(key);
  if (hit !== undefined) {
    shared.delete(key);
    shared.set(key, hit);
    return hit as M;
  }
  const model = build();
  shared.set(key, model);
  if (shared.size > MAX_SHARED_MODELS) {
    const oldest = shared.keys().next().value;
    if (oldest !== undefined) shared.delete(oldest);
  }
  return model;
}

interface ModelCalls {
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

/**
 * `model` with its two calls running in `fetch`'s context (the global fetch when undefined). The
 * rest (provider, modelId, supportedUrls, ...) is the shared model's, through the prototype.
 */
export function withCallFetch<M extends ModelCalls>(model: M, fetch: typeof globalThis.fetch | undefined): M {
  const inCall =
    (call: keyof ModelCalls) =>
    (options: never): PromiseLike<unknown> =>
      callFetch.run(fetch, () => model[call](options));
  return Object.create(model, { doGenerate: { value: inCall("doGenerate") }, doStream: { value: inCall("doStream") } }) as M;
}
