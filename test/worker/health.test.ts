import { SELF, env } from "cloudflare:test";
import { describe, it, expect } from "vitest";

describe("health inside workerd", () => {
  it("answers ok only after a round trip through a ChatObject to Postgres", async () => {
    const res = await SELF.fetch("http://chatd.test/api/v2/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, db: "ok" });
  });

  it("a ChatObject reaches Postgres through its own warm pool and the proxy", async () => {
    const stub = env.CHAT_OBJECT.get(env.CHAT_OBJECT.idFromName(`health-${crypto.randomUUID()}`));
    expect(await stub.checkDatabase()).toEqual({ ok: true });
  });

  it("answers unknown routes with the error shape", async () => {
    const res = await SELF.fetch("http://chatd.test/api/v2/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Resource not found.", code: "not_found" });
  });
});
