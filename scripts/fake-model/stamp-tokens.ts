// `/stamp <n> [<ms>]`: n tokens ` [seq@µs]`, seq from 0, µs the moment the server wrote the token,
// in microseconds on the machine's monotonic clock (process.hrtime: CLOCK_MONOTONIC, the same in
// every process here). A client on this machine reads each token's latency, receipt − write time,
// without any clock sync: the relay bench's unit of measure (scripts/bench/relay/).
//
// The tokens are built like any other script's, with a mark where the time goes; the server fills
// each mark in as it writes the frame (stampAtWrite). The only non-deterministic reply: it is
// measuring, not scripting.

import type { Frame } from "./frame";

/** Private-use characters: JSON keeps them as they are, and no stamped reply carries any text of the client's. */
const MARK = "\uE000";
const MARKED = new RegExp(`${MARK}(\\d+)${MARK}`, "g");

/** The tokens of `/stamp count`, each with its write time still to fill in. */
export function stampTokens(count: number): string[] {
  return Array.from({ length: count }, (_, seq) => ` [${seq}@${MARK}${seq}${MARK}]`);
}

/**
 * The frames with each token's write time filled in as the frame is written. A later frame that
 * repeats the text (a format's `done` or `completed` event) repeats the same times.
 */
export function stampAtWrite(frames: Frame[]): Frame[] {
  const written = new Map<string, string>();
  const timeOf = (_: string, seq: string): string => {
    let time = written.get(seq);
    if (time === undefined) {
      time = String(process.hrtime.bigint() / 1000n);
      written.set(seq, time);
    }
    return time;
  };
  return frames.map((frame) => (typeof frame === "string" && frame.includes(MARK) ? () => frame.replace(MARKED, timeOf) : frame));
}
