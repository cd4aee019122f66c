/**
 * The Message part buffer's predefined errors. Each carries the episode key and a stable `code`;
 * callers branch on the class (or `code`), never on `message`.
 *
 * Storing parts is best-effort (the spec: "If AddPart returns an error, the goroutine ignores
 * it"), and the callers do not branch on the class there: the model step ignores whatever its
 * `onPart` throws (src/llm/step.ts), so a streamed part `addPart` refuses, for any reason, is
 * simply not in the episode; the compaction ignores any error of its first part the same way.
 */
import { type EpisodeKey, formatEpisodeKey } from "./episode";

export const PART_BUFFER_ERROR_CODES = ["episode_exists", "episode_not_found", "episode_closed", "episode_full"] as const;
export type PartBufferErrorCode = (typeof PART_BUFFER_ERROR_CODES)[number];

export abstract class PartBufferError extends Error {
  abstract readonly code: PartBufferErrorCode;
  constructor(
    readonly key: EpisodeKey,
    message: string,
  ) {
    super(message);
  }
}

export function isPartBufferError(error: unknown): error is PartBufferError {
  return error instanceof PartBufferError;
}

/** createEpisode on an episode that already exists (created, or created closed by closeEpisode). */
export class EpisodeExistsError extends PartBufferError {
  override name = "EpisodeExistsError";
  override readonly code = "episode_exists";
  constructor(key: EpisodeKey) {
    super(key, `message part episode ${formatEpisodeKey(key)} already exists`);
  }
}

/** The episode was never created, or was collected. */
export class EpisodeNotFoundError extends PartBufferError {
  override name = "EpisodeNotFoundError";
  override readonly code = "episode_not_found";
  constructor(key: EpisodeKey) {
    super(key, `message part episode ${formatEpisodeKey(key)} not found`);
  }
}

/** The episode is closed: it accepts no parts and no model invocation stamp. */
export class EpisodeClosedError extends PartBufferError {
  override name = "EpisodeClosedError";
  override readonly code = "episode_closed";
  constructor(key: EpisodeKey) {
    super(key, `message part episode ${formatEpisodeKey(key)} is closed`);
  }
}

/** Accepting the part would take the episode past its byte cap (or an earlier add already did). */
export class EpisodeFullError extends PartBufferError {
  override name = "EpisodeFullError";
  override readonly code = "episode_full";
  constructor(
    key: EpisodeKey,
    /** Bytes already held by the episode. */
    readonly bytes: number,
    /** Size of the refused part; null when the episode was already full and the part was not measured. */
    readonly partBytes: number | null,
    readonly maxBytes: number,
  ) {
    super(
      key,
      partBytes === null
        ? `message part episode ${formatEpisodeKey(key)} is full (${bytes} of ${maxBytes} bytes)`
        : `message part episode ${formatEpisodeKey(key)} is full: ${bytes} + ${partBytes} bytes exceeds ${maxBytes}`,
    );
  }
}
