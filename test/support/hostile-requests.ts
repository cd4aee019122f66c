/**
 * Hostile requests, generated from a seed (R4 of the reliability suites): each takes a well-formed
 * request of the public API and breaks exactly one thing in a way no route may accept — a field of
 * the wrong type, text Postgres cannot store (NUL, lone surrogates), an enum, UUID or integer id that is not
 * one, a body that is not JSON or is too large or too deep, a broken path, query or header. So
 * every answer must be a 4xx, and nothing may be written. Pure: the same seed gives the same list.
 */
import { seededRandom } from "../../src/seeded-random";

export interface Target {
  chatId: string;
  messageId: number;
  organizationId: string;
  userId: string;
}

/** An answer a hostile request may get: its status and the error body's machine-readable code. */
export interface ExpectedAnswer {
  status: number;
  code: string;
}

export interface HostileRequest {
  /** What was broken, for the failure report. */
  label: string;
  method: string;
  /** Under /api/v2. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * The answers it may get. One, except for a broken path parameter: 400 when a route of that
   * method matches the path and refuses the parameter, 404 when none matches.
   */
  expected: readonly ExpectedAnswer[];
}

const INVALID: ExpectedAnswer = { status: 400, code: "validation_failed" };
const WHOLE_BODY_ANSWER: Record<string, ExpectedAnswer> = {
  huge: { status: 413, code: "payload_too_large" },
  "wrong-type-header": { status: 415, code: "unsupported_media_type" },
};

type Slot = "string" | "uuid" | "enum" | "int" | "bool" | "array" | "record";

interface Template {
  method: string;
  path: (t: Target) => string;
  /** A body that passes validation, and the type of each field that may be broken. */
  body?: (t: Target) => Record<string, unknown>;
  fields?: Record<string, Slot>;
  query?: Record<string, Slot>;
  /** Routes with a raw body (uploads). */
  raw?: boolean;
}

const text = (t: string) => [{ type: "text", text: t }];

/** Only requests that could write: breaking one field must turn each into a refusal. */
const TEMPLATES: Template[] = [
  {
    method: "POST",
    path: () => "/chats",
    body: (t) => ({ content: text("hi"), organization_id: t.organizationId, title: "t", labels: { a: "b" } }),
    fields: {
      content: "array",
      "content.0.text": "string",
      "content.0.type": "enum",
      organization_id: "uuid",
      title: "string",
      labels: "record",
      "labels.a": "string",
      model_config_id: "uuid",
      reasoning_effort: "enum",
      system_prompt: "string",
      unsafe_dynamic_tools: "array",
      client_type: "enum",
    },
  },
  {
    method: "PATCH",
    path: (t) => `/chats/${t.chatId}`,
    body: () => ({ title: "renamed", pin_order: 1, labels: { k: "v" } }),
    fields: { title: "string", pin_order: "int", archived: "bool", labels: "record", "labels.k": "string" },
  },
  {
    method: "POST",
    path: (t) => `/chats/${t.chatId}/messages`,
    body: () => ({ content: text("hello"), busy_behavior: "queue" }),
    fields: {
      content: "array",
      "content.0.text": "string",
      "content.0.type": "enum",
      busy_behavior: "enum",
      model_config_id: "uuid",
      reasoning_effort: "enum",
    },
  },
  {
    method: "PATCH",
    path: (t) => `/chats/${t.chatId}/messages/${t.messageId}`,
    body: () => ({ content: text("edited") }),
    fields: { content: "array", "content.0.text": "string", "content.0.type": "enum", model_config_id: "uuid", reasoning_effort: "enum" },
  },
  {
    method: "POST",
    path: (t) => `/chats/${t.chatId}/tool-results`,
    body: () => ({ results: [{ tool_call_id: "call_1", output: "x", is_error: false }] }),
    fields: { results: "array", "results.0.tool_call_id": "string", "results.0.is_error": "bool" },
  },
  {
    method: "POST",
    path: (t) => `/users/${t.userId}/keys/tokens`,
    body: () => ({ token_name: "fuzz", lifetime_seconds: 3600 }),
    fields: { token_name: "string", lifetime_seconds: "int" },
  },
  {
    method: "PUT",
    path: () => "/users/me/chat-preferences",
    body: () => ({ compaction_threshold_percent: 50 }),
    fields: { compaction_threshold_percent: "int" },
  },
  {
    method: "PUT",
    path: (t) => `/organizations/${t.organizationId}/chats/model-overrides/compaction`,
    body: () => ({ model_config_id: "00000000-0000-4000-8000-000000000000" }),
    fields: { model_config_id: "uuid" },
  },
  { method: "GET", path: () => "/chats", query: { limit: "int", archived: "bool", after_id: "uuid", label: "string" } },
  { method: "POST", path: () => "/chats/files", raw: true, query: { organization: "uuid", name: "string" } },
];

/** Path shapes with a broken parameter. */
const PATHS: ((t: Target, bad: string) => string)[] = [
  (_, bad) => `/chats/${bad}`,
  (_, bad) => `/chats/${bad}/messages`,
  (t, bad) => `/chats/${t.chatId}/messages/${bad}`,
  (t, bad) => `/chats/${t.chatId}/queue/${bad}`,
  (t, bad) => `/chats/${t.chatId}/queue/${bad}/promote`,
  (_, bad) => `/chats/files/${bad}`,
  (_, bad) => `/organizations/${bad}/chats/models`,
  (_, bad) => `/chats/${bad}/stream`,
];

/** The seeded generator every seeded suite uses (src/seeded-random.ts). */
export const rng = seededRandom;

type Rand = () => number;
const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
const word = (r: Rand) => Math.floor(r() * 36 ** 6).toString(36);

/** Strings that no text field may store. */
function unstorableString(r: Rand): string {
  return pick(r, [`a\u0000b${word(r)}`, "\u0000", `x\uD800${word(r)}`, `\uDC00`, `${word(r)}\uDBFF`]);
}

/** A value that is not of `slot`'s type, nor storable if it is a string. */
function breakSlot(r: Rand, slot: Slot): unknown {
  const wrongTypes: unknown[] = [12345, -1.5, true, { nested: { deep: [1, 2] } }, [word(r)]];
  switch (slot) {
    case "string":
      return pick(r, [unstorableString(r), ...wrongTypes.filter((v) => typeof v !== "string")]);
    case "uuid":
      return pick(r, [
        unstorableString(r),
        "not-a-uuid",
        `${crypto.randomUUID()}x`,
        "00000000-0000-0000-0000-00000000000g",
        42,
        [crypto.randomUUID()],
      ]);
    case "enum":
      return pick(r, [unstorableString(r), `bogus-${word(r)}`, "", 7, false, { type: "text" }]);
    case "int":
      return pick(r, [-1, 1.5, 1e308, "12", true, [1], -999999999999]);
    case "bool":
      return pick(r, ["true", 1, 0, "yes", [true], { v: true }]);
    case "array":
      return pick(r, [unstorableString(r), 7, { 0: "a" }, true, [unstorableString(r)], [{ type: `bogus-${word(r)}` }]]);
    case "record":
      return pick(r, [[["k", "v"]], unstorableString(r), 3, { [`k\u0000`]: "v" }, { k: 5 }, { [`k${"x".repeat(80)}`]: "v" }]);
  }
}

/** A NUL in a string (a URL cannot carry a lone surrogate: it arrives as U+FFFD). */
const nul = (r: Rand) => pick(r, [`a\u0000${word(r)}`, "\u0000"]);

/** A query value that is not of `slot`'s type (every query value arrives as a string). */
function breakQuery(r: Rand, slot: Slot): string {
  switch (slot) {
    case "int":
      return pick(r, ["-1", "abc", "1.5", "1e309", "0", "", nul(r)]);
    case "bool":
      return pick(r, ["maybe", "2", "TRUE!", "", nul(r)]);
    case "uuid":
      return pick(r, ["not-a-uuid", `${crypto.randomUUID()}x`, "", nul(r)]);
    default:
      return pick(r, [nul(r), "x".repeat(5_000)]);
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

const JSON_HEADERS = { "Content-Type": "application/json" };

function deepJson(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

/** The `index`-th hostile request of `seed`, built for `target`. */
export function hostileRequest(seed: number, index: number, target: Target): HostileRequest {
  const r = rng(seed * 1_000_003 + index);
  const kind = r();
  // 55 %: one field of a well-formed body broken.
  if (kind < 0.55) {
    const template = pick(
      r,
      TEMPLATES.filter((t) => t.fields),
    );
    const body = structuredClone(template.body?.(target) ?? {});
    const [field, slot] = pick(r, Object.entries(template.fields ?? {}));
    setPath(body, field, breakSlot(r, slot));
    return {
      label: `${template.method} body.${field}:${slot}`,
      method: template.method,
      path: template.path(target),
      headers: JSON_HEADERS,
      body: JSON.stringify(body),
      expected: [INVALID],
    };
  }
  // 15 %: a query parameter broken.
  if (kind < 0.7) {
    const template = pick(
      r,
      TEMPLATES.filter((t) => t.query),
    );
    const [name, slot] = pick(r, Object.entries(template.query ?? {}));
    const params = new URLSearchParams(template.raw ? { organization: target.organizationId, name: "f.txt" } : {});
    params.set(name, breakQuery(r, slot));
    const headers: Record<string, string> = template.raw ? { "Content-Type": "text/plain" } : {};
    return {
      label: `${template.method} query.${name}:${slot}`,
      method: template.method,
      path: `${template.path(target)}?${params}`,
      headers,
      ...(template.raw ? { body: "bytes" } : {}),
      expected: [INVALID],
    };
  }
  // 15 %: the whole body is not what a JSON route takes.
  if (kind < 0.85) {
    const template = pick(
      r,
      TEMPLATES.filter((t) => t.body),
    );
    const variant = pick(r, ["truncated", "not-json", "scalar", "deep", "huge", "wrong-type-header", "array"] as const);
    const valid = JSON.stringify(template.body?.(target));
    const bodies: Record<typeof variant, { body: string; headers: Record<string, string> }> = {
      truncated: { body: valid.slice(0, Math.max(1, Math.floor(valid.length * r()))), headers: JSON_HEADERS },
      "not-json": { body: `\u0000\uFFFE${word(r)}{`, headers: JSON_HEADERS },
      scalar: { body: pick(r, ["null", "42", '"text"', "true"]), headers: JSON_HEADERS },
      deep: { body: `{"${Object.keys(template.fields ?? { content: "array" })[0]}":${deepJson(5_000)}}`, headers: JSON_HEADERS },
      huge: { body: `{"content":[{"type":"text","text":"${"x".repeat(1_100_000)}"}]}`, headers: JSON_HEADERS },
      "wrong-type-header": {
        body: valid,
        headers: { "Content-Type": pick(r, ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) },
      },
      array: { body: `[${valid}]`, headers: JSON_HEADERS },
    };
    return {
      label: `${template.method} whole-body:${variant}`,
      method: template.method,
      path: template.path(target),
      ...bodies[variant],
      expected: [WHOLE_BODY_ANSWER[variant] ?? INVALID],
    };
  }
  // 15 %: a path parameter or the credentials broken.
  if (kind < 0.95) {
    const bad = pick(r, ["not-a-uuid", "%00", "%ED%A0%80", "..%2F..%2Fusers", `${crypto.randomUUID()}%00`, "x".repeat(2_000), "%E2%80%AE"]);
    const shape = pick(r, PATHS);
    return {
      label: `path:${bad.slice(0, 24)}`,
      method: pick(r, ["GET", "POST", "PATCH", "DELETE"]),
      path: shape(target, bad),
      headers: JSON_HEADERS,
      body: "{}",
      expected: [INVALID, { status: 404, code: "not_found" }],
    };
  }
  const auth = pick(r, [
    "Bearer",
    "Bearer ",
    "Bearer \u00e9\u00e9",
    `Bearer ${"a".repeat(8_000)}`,
    "Basic Zm9vOmJhcg==",
    `Bearer ${crypto.randomUUID()}-${word(r)}`,
    "Bearer a-b-c-d",
  ]);
  return {
    label: `auth:${auth.slice(0, 16)}`,
    method: "POST",
    path: "/chats",
    headers: { ...JSON_HEADERS, Authorization: auth, "x-replace-auth": "1" },
    body: JSON.stringify({ content: text("hi") }),
    expected: [{ status: 401, code: "unauthorized" }],
  };
}
