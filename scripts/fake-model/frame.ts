/**
 * A stream is a list of raw SSE frames, with pauses where a token delay applies. A function is a
 * frame whose text is only known when it is written (`/stamp`, stamp-tokens.ts).
 */
export type Frame = string | { pauseMs: number } | (() => string);
