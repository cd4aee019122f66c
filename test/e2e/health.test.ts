import { describe, it, expect, inject } from "vitest";

describe("health over real HTTP against wrangler dev", () => {
  it("reports the database reachable through Worker, ChatObject and proxy", async () => {
    const res = await fetch(`${inject("baseUrl")}/api/v2/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, db: "ok" });
  });
});
