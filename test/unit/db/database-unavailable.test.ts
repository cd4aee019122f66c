/**
 * Which failures mean "the database is unreachable right now", answered 503 with a retry hint
 * rather than 500.
 */
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, isDeadlock } from "../../../src/db/pg-errors";
import { toApiError } from "../../../src/http/errors";

const pgError = (code: string, message = "x") => Object.assign(new Error(message), { code });
class ErrorEvent {
  readonly type = "error";
}

describe("isDatabaseUnavailable", () => {
  it.each([
    ["connection failure (08006)", pgError("08006")],
    ["admin shutdown, i.e. pg_terminate_backend (57P01)", pgError("57P01", "terminating connection due to administrator command")],
    ["cannot connect now (57P03)", pgError("57P03")],
    ["too many connections (53300)", pgError("53300")],
    ["a lost socket", new Error("Connection terminated unexpectedly")],
    ["a held connection the cut left unusable", new Error("Client has encountered a connection error and is not queryable")],
    ["workerd's lost connection", new Error("Uncaught Error: Network connection lost.")],
    ["drizzle's wrapper around one", Object.assign(new Error("Failed query: select 1"), { cause: pgError("57P01") })],
    ["the driver's bare WebSocket ErrorEvent", new ErrorEvent()],
  ])("%s is unavailability", (_label, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ["unique violation", pgError("23505", "duplicate key value violates unique constraint")],
    ["syntax error", pgError("42601")],
    ["a plain bug", new TypeError("cannot read properties of undefined")],
    ["not an object", "connection"],
  ])("%s is not", (_label, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it("is answered 503 database_unavailable; anything else unexpected stays 500 internal", () => {
    expect(toApiError(pgError("57P01"))).toMatchObject({ status: 503, code: "database_unavailable" });
    expect(toApiError(new TypeError("boom"))).toMatchObject({ status: 500, code: "internal" });
  });
});

describe("isDeadlock", () => {
  it("is deadlock_detected (40P01), also under drizzle's wrapper, and nothing else", () => {
    expect(isDeadlock(pgError("40P01", "deadlock detected"))).toBe(true);
    expect(isDeadlock(Object.assign(new Error("Failed query"), { cause: pgError("40P01") }))).toBe(true);
    expect(isDeadlock(pgError("40001"))).toBe(false);
    expect(isDeadlock(new Error("deadlock detected"))).toBe(false);
  });
});
