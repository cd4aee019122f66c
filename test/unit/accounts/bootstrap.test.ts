/** Who may create the first user over HTTP: the operator's secret, or nobody. */
import { describe, expect, it } from "vitest";
import { assertBootstrapAllowed } from "../../../src/accounts/bootstrap";
import { BootstrapRefusedError } from "../../../src/accounts/errors";

const SECRET = "0123456789abcdef-operator";

describe("assertBootstrapAllowed", () => {
  it("refuses everyone when no secret is configured, even a caller presenting an empty one", () => {
    for (const presented of [undefined, "", SECRET]) {
      expect(() => assertBootstrapAllowed("", presented)).toThrow(expect.objectContaining({ reason: "off" }));
    }
  });

  it("allows the configured secret only", () => {
    expect(() => assertBootstrapAllowed(SECRET, SECRET)).not.toThrow();
    for (const presented of [undefined, "", `${SECRET}x`, SECRET.slice(1)]) {
      let thrown: unknown;
      try {
        assertBootstrapAllowed(SECRET, presented);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(BootstrapRefusedError);
      expect((thrown as BootstrapRefusedError).reason).toBe("wrong_secret");
    }
  });
});
