/**
 * What every runner task gets: its fence, its cancellation signal, and the object's shared parts
 * (store, part buffer, model resolution, clock).
 */
import type { Config } from "../config/env";
import type { Database } from "../db/database";
import type { ChatStore } from "../db/store";
import type { StreamPart } from "../llm/stream-part";
import type { LocalToolRegistry } from "../llm/tools";
import type { PartBuffer } from "../stream/part-buffer";
import type { AttributionKeyCache } from "./attribution";
import type { Fence } from "./fence";
import type { FileReader } from "./prompt-files";

export interface RunnerDeps {
  store: ChatStore;
  db: Database;
  config: Config;
  parts: PartBuffer<StreamPart>;
  localTools: LocalToolRegistry;
  now(): Date;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Optional fetch for model providers (a test's recorder and the like). */
  fetch?: typeof fetch;
  /** Attachment bytes (the object's R2 bucket); without it files reach the model as text placeholders. */
  files?: FileReader;
  /** The owner's attribution key id, kept across turns (src/runner/attribution.ts). */
  attributionKeys?: AttributionKeyCache;
}

export interface TaskContext extends RunnerDeps {
  fence: Fence;
  signal: AbortSignal;
}
