/**
 * `ChatdClient`: one typed method per operation of ./operations.ts, for browsers and Node.
 * Authenticates with a bearer token when given one; without, it relies on the
 * `coder_session_token` cookie (a browser on the API's origin).
 */
import type { z } from "zod";
import { ChatStream, type ChatStreamOptions } from "./chat-stream";
import { ChatWatch, type ChatWatchOptions } from "./chat-watch";
import { ChatdError } from "./errors";
import { PartsStream, type PartsStreamOptions } from "./parts-stream";
import type { StreamHost } from "./stream-host";
import { type Operation, type OperationName, type Operations, operations } from "./operations";
import type { ComponentName, Input, Output, Queries } from "./schemas";

/** Path segments that are integer ids (messages, queued messages); every other one is a string. */
type IntegerParam = "message" | "queued";

/** `{chat}` segments of a path, as an object: strings, or numbers for integer ids. */
type PathParams<P extends string> = P extends `${string}{${infer K}}${infer Rest}`
  ? { [k in K]: k extends IntegerParam ? number : string } & PathParams<Rest>
  : unknown;

type BodyInput<O extends Operation> = O["body"] extends ComponentName
  ? { body: Input<O["body"]> }
  : O["body"] extends "binary"
    ? { body: Blob | ArrayBuffer | Uint8Array; contentType: string }
    : unknown;

type QueryInput<O extends Operation> = O["query"] extends keyof Queries ? { query?: z.input<Queries[O["query"]]> } : unknown;

/** What a method takes: the path's parameters, plus `body` and `query` when the operation has them. */
export type OperationInput<O extends Operation> = PathParams<O["path"]> & BodyInput<O> & QueryInput<O>;

/** What a method resolves to. */
export type OperationOutput<O extends Operation> = O["response"] extends `${infer N extends ComponentName}[]`
  ? Output<N>[]
  : O["response"] extends ComponentName
    ? Output<O["response"]>
    : O["response"] extends "binary"
      ? Blob
      : undefined;

/** `{}` when an operation needs nothing, so `client.me()` takes no argument. */
type Args<O extends Operation> = Record<never, never> extends OperationInput<O> ? [input?: OperationInput<O>] : [input: OperationInput<O>];

export type OperationMethods = {
  [K in OperationName]: (...args: Args<Operations[K]>) => Promise<OperationOutput<Operations[K]>>;
};

export interface ChatdClientOptions {
  /** The API's origin or base, e.g. `http://127.0.0.1:8787` or `http://127.0.0.1:8787/api/v2`; `""` = same origin. */
  baseUrl: string;
  /** An API token; omitted in a browser that holds the session cookie. */
  token?: string;
  fetch?: typeof fetch;
}

export interface ChatdClient extends OperationMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface lists the methods the constructor installs from the table
export class ChatdClient implements StreamHost {
  readonly apiBase: string;
  readonly token: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: ChatdClientOptions) {
    const base = options.baseUrl.replace(/\/+$/, "");
    this.apiBase = base.endsWith("/api/v2") ? base : `${base}/api/v2`;
    this.token = options.token;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    for (const [name, operation] of Object.entries(operations) as [OperationName, Operation][]) {
      (this as unknown as Record<string, unknown>)[name] = (input?: Record<string, unknown>) => this.call(operation, input ?? {});
    }
  }

  /** Runs one operation; the typed methods are this with the table's types. */
  async call(operation: Operation, input: Record<string, unknown>): Promise<unknown> {
    const url = this.url(operation, input);
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: RequestInit["body"];
    if (operation.body === "binary") {
      headers["content-type"] = String(input.contentType);
      body = input.body as RequestInit["body"];
    } else if (operation.body) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(input.body);
    }
    let res: Response;
    try {
      res = await this.#fetch(url, { method: operation.method.toUpperCase(), headers, body, credentials: "same-origin" });
    } catch (err) {
      throw ChatdError.network(err);
    }
    if (!res.ok) throw await ChatdError.fromResponse(res);
    if (operation.response === null) return undefined;
    if (operation.response === "binary") return res.blob();
    return res.json();
  }

  /** A live view of one chat over its stream WebSocket (./chat-stream.ts). Call `close()` when done. */
  stream(chatId: string, options: ChatStreamOptions = {}): ChatStream {
    return new ChatStream(this, chatId, options);
  }

  /** The live chat list over `/chats/watch` (./chat-watch.ts). Call `close()` when done. */
  watchChats(options: ChatWatchOptions = {}): ChatWatch {
    return new ChatWatch({ token: this.token, watchUrl: (withToken) => this.watchUrl(withToken), me: () => this.me() }, options);
  }

  /** The WebSocket URL of the chat list watch, with the token in the query when `withToken`. */
  watchUrl(withToken = true): string {
    const url = new URL(`${this.apiBase}/chats/watch`, (globalThis as { location?: { href: string } }).location?.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    if (withToken && this.token) url.searchParams.set("coder_session_token", this.token);
    return url.toString();
  }

  /** The raw parts of one episode at a time over `/stream/parts` (./parts-stream.ts). */
  partsStream(chatId: string, options: PartsStreamOptions = {}): PartsStream {
    return new PartsStream(this, chatId, options);
  }

  /** The WebSocket URL of a chat's stream, with the token in the query (browsers cannot set headers). */
  streamUrl(chatId: string, path: "stream" | "stream/parts", query: Record<string, string | number | undefined> = {}, withToken = true) {
    const url = new URL(
      `${this.apiBase}/chats/${encodeURIComponent(chatId)}/${path}`,
      (globalThis as { location?: { href: string } }).location?.href,
    );
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    if (withToken && this.token) url.searchParams.set("coder_session_token", this.token);
    return url.toString();
  }

  private url(operation: Operation, input: Record<string, unknown>): string {
    const path = operation.path.replace(/\{(\w+)\}/g, (_, key: string) => {
      const value = input[key];
      if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
      if (typeof value !== "string" || value === "") throw new TypeError(`${operation.path}: missing path parameter ${key}`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries((input.query as Record<string, unknown> | undefined) ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) query.append(key, String(v));
    }
    const qs = query.toString();
    return `${this.apiBase}${path}${qs ? `?${qs}` : ""}`;
  }
}

/** A text part, the most common content. */
export const text = (t: string): { type: "text"; text: string } => ({ type: "text", text: t });
