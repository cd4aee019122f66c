/**
 * The fake model's request log (`GET /_requests`, docs/fake-model.md "Request log"): what each
 * request carried, found by a text of its last user message. Works from Node and from inside workerd.
 */
import { inject } from "vitest";
import { SUMMARY_REQUEST_HEADING } from "../../src/llm/summary";

/** One logged request. */
export interface RecordedRequest {
  endpoint: string;
  model: string;
  headers: Record<string, string>;
  /** First 16 hex digits of the SHA-256 of the API key the request carried; null when none. */
  credentialSha256: string | null;
  params: Record<string, unknown>;
  userTexts: string[];
  files: { part: string; mediaType: string; bytes: number; sha256: string }[];
  /** The provider's own tools offered (web search), with their settings. */
  providerTools: Record<string, unknown>[];
  /** Provider tool history sent back, in order (`item_reference`, `server_tool_use`, …). */
  replayedProviderTools: string[];
}

/** Every request whose last user message contains `text`: a chat's turns, its title calls and its summary calls. */
export async function requestsWith(text: string): Promise<RecordedRequest[]> {
  const res = await fetch(`${inject("fakeModelUrl")}/_requests?contains=${encodeURIComponent(text)}`);
  return ((await res.json()) as { requests: RecordedRequest[] }).requests;
}

/** The turns' requests among them (streaming); a chat's title call is not one. */
export async function turnRequestsWith(text: string): Promise<RecordedRequest[]> {
  return (await requestsWith(text)).filter((r) => r.params.stream === true);
}

/** Whether a request is a chat's summary call (its last user message is the summary transcript). */
export function isSummaryRequest(r: RecordedRequest): boolean {
  return (r.userTexts.at(-1) ?? "").startsWith(SUMMARY_REQUEST_HEADING);
}

/** The title calls among them: not streaming, not a summary call. */
export async function titleRequestsWith(text: string): Promise<RecordedRequest[]> {
  return (await requestsWith(text)).filter((r) => r.params.stream !== true && !isSummaryRequest(r));
}

/** The summary calls among them (their transcript carries `text`). */
export async function summaryRequestsWith(text: string): Promise<RecordedRequest[]> {
  return (await requestsWith(text)).filter(isSummaryRequest);
}
