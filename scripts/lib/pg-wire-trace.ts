/**
 * CHATD_DB_TRACE=FILE: the WebSocket proxy appends one line per database round trip to FILE, with
 * the statements the client sent in it (Postgres frontend messages: simple Query and Parse), so a
 * bench's round-trip count can be read statement by statement. Diagnostic only; off by default.
 */
import { appendFileSync } from "node:fs";

export interface WireTrace {
  /** Client bytes of connection `conn`; `startsRoundTrip` when the proxy counted a new round trip. */
  client(conn: number, bytes: Buffer, startsRoundTrip: boolean): void;
  /** Postgres's first bytes of the answer to a round trip of connection `conn` reached the proxy. */
  answered(conn: number): void;
  /** A line of its own (the proxy's counters were reset: a bench's measured window starts). */
  mark(text: string): void;
}

let shared: WireTrace | undefined;

/** The process's trace (one file, one clock), or undefined when CHATD_DB_TRACE is unset. */
export function wireTraceFromEnv(env: NodeJS.ProcessEnv = process.env): WireTrace | undefined {
  if (!shared && env.CHATD_DB_TRACE) shared = openWireTrace(env.CHATD_DB_TRACE);
  return shared;
}

function openWireTrace(file: string): WireTrace {
  const pending = new Map<number, Buffer>();
  const started = performance.now();
  const at = () => (performance.now() - started).toFixed(1);
  return {
    mark(text) {
      appendFileSync(file, `${at()}\t---- ${text}\n`);
    },
    answered(conn) {
      appendFileSync(file, `${at()}\tconn ${conn}\t<-\n`);
    },
    client(conn, bytes, startsRoundTrip) {
      // The first message of a connection (startup) has no type byte; it is not a statement.
      let buf = pending.has(conn) ? Buffer.concat([pending.get(conn)!, bytes]) : bytes;
      const statements: string[] = [];
      if (!pending.has(conn) && buf.length >= 8 && buf.readInt32BE(4) === 196608) {
        statements.push("<startup>");
        buf = buf.subarray(buf.readInt32BE(0));
      }
      while (buf.length >= 5) {
        const type = String.fromCharCode(buf[0]!);
        const len = buf.readInt32BE(1);
        if (buf.length < 1 + len) break;
        const body = buf.subarray(5, 1 + len);
        if (type === "Q") statements.push(cstring(body, 0));
        else if (type === "P") statements.push(cstring(body, cstring(body, 0).length + 1));
        else if (type === "p") statements.push("<password>");
        buf = buf.subarray(1 + len);
      }
      pending.set(conn, buf);
      if (statements.length === 0) return;
      const text = statements.map((s) => s.replace(/\s+/g, " ").trim().slice(0, 160)).join(" ;; ");
      appendFileSync(file, `${at()}\tconn ${conn}\t${startsRoundTrip ? "RT" : "+"}\t${text}\n`);
    },
  };
}

function cstring(buf: Buffer, from: number): string {
  const end = buf.indexOf(0, from);
  return buf.toString("utf8", from, end < 0 ? buf.length : end);
}
