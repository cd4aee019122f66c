/** runTask: a task's controlled exits and its retry schedule for unexpected errors. */
import { describe, expect, it } from "vitest";
import { ChatNotFoundError } from "../../../src/chatstate/errors";
import { FenceError } from "../../../src/chat-worker/fence";
import { runTask, TASK_RETRY_INITIAL_MS, TASK_RETRY_MAX_MS } from "../../../src/chat-worker/run-task";

const fence = { chatId: "c", workerId: "w", runnerId: "r", historyVersion: 1, status: "running" as const };
const stale = () => new FenceError(fence, { historyVersion: 2, status: "running", runnerId: "r", workerId: "w" });

function recorder() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe("runTask", () => {
  it("done after the body succeeds", async () => {
    const { sleep, waits } = recorder();
    expect(await runTask("t", new AbortController().signal, async () => {}, sleep)).toBe("done");
    expect(waits).toEqual([]);
  });

  it("stale on a fence failure and chat_deleted on a missing chat, without retrying", async () => {
    const { sleep, waits } = recorder();
    expect(await runTask("t", new AbortController().signal, async () => Promise.reject(stale()), sleep)).toBe("stale");
    expect(await runTask("t", new AbortController().signal, async () => Promise.reject(new ChatNotFoundError("c")), sleep)).toBe(
      "chat_deleted",
    );
    expect(waits).toEqual([]);
  });

  it("cancelled when the signal fired, whatever the body threw", async () => {
    const { sleep } = recorder();
    const controller = new AbortController();
    const exit = await runTask(
      "t",
      controller.signal,
      async () => {
        controller.abort();
        throw new Error("connection reset");
      },
      sleep,
    );
    expect(exit).toBe("cancelled");
    const before = new AbortController();
    before.abort();
    let ran = false;
    const body = async () => {
      ran = true;
    };
    expect(await runTask("t", before.signal, body, sleep)).toBe("cancelled");
    expect(ran).toBe(false);
  });

  it("retries unexpected errors with doubling backoff, capped, until the body succeeds", async () => {
    const { sleep, waits } = recorder();
    let calls = 0;
    const exit = await runTask(
      "t",
      new AbortController().signal,
      async () => {
        calls++;
        if (calls <= 10) throw new Error("database unreachable");
      },
      sleep,
    );
    expect(exit).toBe("done");
    expect(calls).toBe(11);
    const expected = Array.from({ length: 10 }, (_, i) => Math.min(TASK_RETRY_MAX_MS, TASK_RETRY_INITIAL_MS * 2 ** i));
    expect(waits).toEqual(expected);
    expect(waits.at(-1)).toBe(TASK_RETRY_MAX_MS);
  });

  it("a cancellation during the backoff ends the task as cancelled", async () => {
    const controller = new AbortController();
    const exit = await runTask(
      "t",
      controller.signal,
      async () => Promise.reject(new Error("boom")),
      async () => {
        controller.abort();
        throw new Error("aborted");
      },
    );
    expect(exit).toBe("cancelled");
  });
});
