/** Incarnation: the lease one instance of a chat's object leaves to the next, and when it leaves none. */
import { describe, expect, it } from "vitest";
import { Incarnation, type LeaseStorage } from "../../../durable-objects/chat-object/incarnation";

/** The two storage calls Incarnation makes, over a Map shared by "instances" of one object. */
function objectStorage(map = new Map<string, unknown>()) {
  return {
    map,
    storage: {
      put: async (key: string, value: unknown) => void map.set(key, value),
      get: async <T>(key: string) => map.get(key) as T | undefined,
      delete: async (key: string) => map.delete(key),
    } satisfies LeaseStorage,
  };
}

describe("Incarnation", () => {
  it("hands a lease its instance took to the next instance, once", async () => {
    const { map, storage } = objectStorage();
    new Incarnation(storage).leaseTaken("chat", "w1");
    const next = new Incarnation(objectStorage(map).storage);
    expect(await next.leftByPrevious()).toEqual({ chatId: "chat", workerId: "w1" });
    expect(await next.leftByPrevious()).toBeNull();
  });

  it("leaves nothing once the runner is gone, so an idle chat's next instance probes nothing", async () => {
    const { map, storage } = objectStorage();
    const first = new Incarnation(storage);
    first.leaseTaken("chat", "w1");
    // Another worker id's end is not this lease's.
    first.leaseEnded("chat", "w2");
    expect(map.size).toBe(1);
    first.leaseEnded("chat", "w1");
    await Promise.resolve();
    expect(await new Incarnation(objectStorage(map).storage).leftByPrevious()).toBeNull();
    // Taken again after it ended: written again.
    first.leaseTaken("chat", "w1");
    expect(await new Incarnation(objectStorage(map).storage).leftByPrevious()).toEqual({ chatId: "chat", workerId: "w1" });
  });
});
