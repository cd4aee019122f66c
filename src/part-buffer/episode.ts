/**
 * Episodes of the spec's Message part buffer: one generation attempt's stream of message parts,
 * identified by (chat_id, history_version, generation_attempt). Keys, the size rule and the
 * per-episode state live here; `PartBuffer` (part-buffer.ts) owns the episodes and the rules that
 * span them (creation, closing, collection, subscriber deadlines).
 *
 * Plain ES2022: runs in workerd and in Node alike (no node:* imports, no timers).
 */

/** (chat_id, history_version, generation_attempt). */
export interface EpisodeKey {
  readonly chatId: string;
  readonly historyVersion: number;
  readonly generationAttempt: number;
}

/**
 * One buffered part as every subscriber and `getParts` see it. The same object is handed to every
 * reader (it is frozen): subscribers share the episode's array and keep only a cursor into it.
 */
export interface BufferedPart<P> {
  /** 1-based and contiguous within the episode: the first part is 1, each later one adds 1. */
  readonly seq: number;
  readonly part: P;
  /** The buffer clock's instant when the part was added. */
  readonly addedAt: number;
}

/** A read-only view of an episode, for the stream loop and diagnostics. */
export interface EpisodeInfo {
  readonly key: EpisodeKey;
  readonly createdAt: number;
  /** null while the episode is open. */
  readonly closedAt: number | null;
  readonly partCount: number;
  /** Sum of the UTF-8 sizes of the accepted parts' JSON. */
  readonly bytes: number;
  /** An add was refused for size; every later add is refused too. */
  readonly full: boolean;
  readonly subscriberCount: number;
  readonly modelInvokedAt: number | null;
}

/** Builds a key, validating it (see `assertEpisodeKey`). */
export function episodeKey(chatId: string, historyVersion: number, generationAttempt: number): EpisodeKey {
  const key = { chatId, historyVersion, generationAttempt };
  assertEpisodeKey(key);
  return key;
}

/** chat_id is a non-empty string; history_version and generation_attempt are non-negative safe integers. */
export function assertEpisodeKey(key: EpisodeKey): void {
  if (typeof key.chatId !== "string" || key.chatId.length === 0) {
    throw new TypeError("episode key: chatId must be a non-empty string");
  }
  if (!Number.isSafeInteger(key.historyVersion) || key.historyVersion < 0) {
    throw new RangeError(`episode key: historyVersion must be a non-negative integer, got ${key.historyVersion}`);
  }
  if (!Number.isSafeInteger(key.generationAttempt) || key.generationAttempt < 0) {
    throw new RangeError(`episode key: generationAttempt must be a non-negative integer, got ${key.generationAttempt}`);
  }
}

/**
 * The map key of an episode. The two integers come first so the string is unambiguous whatever
 * characters the chat id holds. Validates the key.
 */
export function episodeId(key: EpisodeKey): string {
  assertEpisodeKey(key);
  return `${key.historyVersion}:${key.generationAttempt}:${key.chatId}`;
}

export function formatEpisodeKey(key: EpisodeKey): string {
  return `(${key.chatId}, ${key.historyVersion}, ${key.generationAttempt})`;
}

/** A copy of a key holding only its three fields (callers may pass richer objects). */
export function copyEpisodeKey(key: EpisodeKey): EpisodeKey {
  return Object.freeze({ chatId: key.chatId, historyVersion: key.historyVersion, generationAttempt: key.generationAttempt });
}

/**
 * Number of UTF-8 bytes `s` encodes to, the same count as `new TextEncoder().encode(s).length`
 * (a lone surrogate counts as U+FFFD, 3 bytes), without allocating the encoded copy.
 */
export function utf8ByteLength(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

/**
 * The size a part counts against its episode's cap: the UTF-8 byte length of `JSON.stringify(part)`.
 * Throws TypeError for a value JSON cannot represent (undefined, a function, a symbol; BigInt and
 * cycles make JSON.stringify throw its own TypeError).
 */
export function serializedPartBytes(part: unknown): number {
  const json = JSON.stringify(part) as string | undefined;
  if (json === undefined) throw new TypeError("message part is not JSON-serializable");
  return utf8ByteLength(json);
}

/**
 * Internal state of one episode. Only PartBuffer and Subscription touch it; readers get
 * `EpisodeInfo` and `BufferedPart`s. `S` is the subscription type (part-subscription.ts's
 * Subscription): a parameter, so that this file, which the subscription reads, does not import it.
 * @internal
 */
export class Episode<P, S> {
  readonly parts: BufferedPart<P>[] = [];
  bytes = 0;
  full = false;
  closedAt: number | null = null;
  modelInvokedAt: number | null = null;
  /** Active subscriptions attached to this episode. */
  readonly subscribers = new Set<S>();
  /** The subset of `subscribers` with a pending `next()` call: woken by the next add or the close. */
  readonly parked = new Set<S>();

  constructor(
    readonly key: EpisodeKey,
    readonly id: string,
    readonly createdAt: number,
  ) {}

  get closed(): boolean {
    return this.closedAt !== null;
  }

  info(): EpisodeInfo {
    return {
      key: this.key,
      createdAt: this.createdAt,
      closedAt: this.closedAt,
      partCount: this.parts.length,
      bytes: this.bytes,
      full: this.full,
      subscriberCount: this.subscribers.size,
      modelInvokedAt: this.modelInvokedAt,
    };
  }
}
