// The stream sockets' pacing of large frames: at most WAVE_BYTES of them per turn, each socket's
// frames (and its close) in order, small frames to an idle socket at once.
import { describe, expect, it } from "vitest";
import { LARGE_FRAME_CHARS, PacedSends, WAVE_BYTES } from "../../../durable-objects/chat-object/paced-sends";

class FakeSocket {
  readonly log: string[] = [];
  failing = false;
  constructor(readonly name: string) {}
  send(frame: string): void {
    if (this.failing) throw new Error("closed");
    this.log.push(frame.length >= LARGE_FRAME_CHARS ? `large:${frame[0]}` : frame);
  }
  close(code: number): void {
    this.log.push(`close:${code}`);
  }
}

/** Turns of the event loop, run by hand: each resolves when the test says so. */
function manualTurns() {
  const pending: (() => void)[] = [];
  return {
    nextTurn: () => new Promise<void>((resolve) => pending.push(resolve)),
    async turn(): Promise<void> {
      const due = pending.splice(0);
      for (const resolve of due) resolve();
      await Promise.resolve();
      await Promise.resolve();
    },
    get scheduled() {
      return pending.length;
    },
  };
}

const MB = 1024 * 1024;
const large = (tag: string) => tag + "x".repeat(MB - 1);

describe("PacedSends", () => {
  it("sends small frames to a socket with nothing waiting at once", () => {
    const turns = manualTurns();
    const sends = new PacedSends<FakeSocket>(turns.nextTurn);
    const s = new FakeSocket("a");
    sends.send(s, "[1]");
    sends.close(s, 1000, "bye");
    expect(s.log).toEqual(["[1]", "close:1000"]);
    expect(turns.scheduled).toBe(0);
  });

  it("sends at most WAVE_BYTES of large frames per turn, across sockets, in the order they waited", async () => {
    const turns = manualTurns();
    const sends = new PacedSends<FakeSocket>(turns.nextTurn);
    const sockets = Array.from({ length: 20 }, (_, i) => new FakeSocket(String(i)));
    for (const s of sockets) sends.send(s, large("m"));
    expect(sockets.every((s) => s.log.length === 0)).toBe(true);
    const perTurn = WAVE_BYTES / MB;
    const sentAfter: number[] = [];
    while (sends.waiting > 0) {
      await turns.turn();
      sentAfter.push(sockets.filter((s) => s.log.length > 0).length);
    }
    expect(sentAfter).toEqual([perTurn, 2 * perTurn, 20]);
    // First come, first served.
    expect(sockets.slice(0, perTurn).every((s) => s.log.length === 1)).toBe(true);
  });

  it("keeps a socket's later frames and its close behind its waiting large frame", async () => {
    const turns = manualTurns();
    const sends = new PacedSends<FakeSocket>(turns.nextTurn);
    const s = new FakeSocket("a");
    sends.send(s, large("m"));
    sends.send(s, "[status]");
    sends.close(s, 1011, "internal");
    expect(s.log).toEqual([]);
    await turns.turn();
    expect(s.log).toEqual(["large:m", "[status]", "close:1011"]);
    // Nothing waits any more: the next small frame goes at once.
    sends.send(s, "[later]");
    expect(s.log.at(-1)).toBe("[later]");
  });

  it("sends one large frame per turn even when it alone exceeds the budget", async () => {
    const turns = manualTurns();
    const sends = new PacedSends<FakeSocket>(turns.nextTurn);
    const s = new FakeSocket("a");
    const huge = `h${"x".repeat(WAVE_BYTES + 10)}`;
    sends.send(s, huge);
    sends.send(s, huge);
    await turns.turn();
    expect(s.log).toEqual(["large:h"]);
    await turns.turn();
    expect(s.log).toEqual(["large:h", "large:h"]);
    expect(sends.waiting).toBe(0);
  });

  it("drops a failing socket's waiting frames without holding back the others", async () => {
    const turns = manualTurns();
    const sends = new PacedSends<FakeSocket>(turns.nextTurn);
    const gone = new FakeSocket("gone");
    const ok = new FakeSocket("ok");
    sends.send(gone, large("a"));
    sends.send(gone, "[after]");
    sends.send(ok, large("b"));
    gone.failing = true;
    await turns.turn();
    expect(gone.log).toEqual([]);
    expect(ok.log).toEqual(["large:b"]);
    expect(sends.waiting).toBe(0);
  });

  it("forgets a closed socket's waiting frames", async () => {
    const turns = manualTurns();
    const sends = new PacedSends<FakeSocket>(turns.nextTurn);
    const s = new FakeSocket("a");
    sends.send(s, large("m"));
    sends.forget(s);
    await turns.turn();
    expect(s.log).toEqual([]);
  });
});
