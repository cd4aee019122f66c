/**
 * AI SDK models shared by every call of the isolate, one per distinct client (transport, base URL,
 * key, model id). A model builds its response schemas when it is constructed, and zod walks a new
 * schema on its first parse: a model built per call paid both on every turn, once between
 * RecordGenerationAttempt and the model request and again on the stream's first chunk.
 *
 * What differs per call is bound to the call, not the model (withPerCall): the headers (the
 * attribution header names the chat) and the fetch (a turn's provider_attempt stages, a test's
 * recorder). A shared model's requests go through `fetchOfCall`, which takes the fetch of the
 * call it runs in, and the global fetch outside one.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Distinct clients kept; the least recently used goes first (a new key or model id makes a new one). */
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

/** What the SDK passes a model call, as far as this file touches it. */
interface CallOptions {
  headers?: Record<string, string | undefined>;
}

interface ModelCalls {
  doGenerate(options: CallOptions): PromiseLike<unknown>;
  doStream(options: CallOptions): PromiseLike<unknown>;
}

export interface PerCall {
  /** Every request of the call goes through it; the global fetch when undefined. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Sent with every request of the call, after the provider's own (auth) headers. */
  headers?: Record<string, string> | undefined;
}

/**
 * `model` with its two calls made with `perCall`'s fetch and headers. The rest (provider,
 * modelId, supportedUrls, ...) is the shared model's, through the prototype. The SDK's own call
 * headers, if any, come after ours, as they came after the provider's when ours were the model's.
 */
export function withPerCall<M extends ModelCalls>(model: M, perCall: PerCall): M {
  const { fetch, headers } = perCall;
  const inCall =
    (call: keyof ModelCalls) =>
    (options: CallOptions): PromiseLike<unknown> =>
      callFetch.run(fetch, () => model[call](headers ? { ...options, headers: { ...headers, ...options.headers } } : options));
  return Object.create(model, { doGenerate: { value: inCall("doGenerate") }, doStream: { value: inCall("doStream") } }) as M;
}
