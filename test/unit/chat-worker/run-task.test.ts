/** exitOrRetry: a task's controlled exits and its retry schedule for unexpected errors. */
import { describe, expect, it } from "vitest";
import { ChatNotFoundError } from "../../../src/chatstate/errors";
import { FenceError } from "../../../src/chat-worker/fence";
import { exitOrRetry, TASK_RETRY_INITIAL_MS, TASK_RETRY_MAX_MS } from "../../../src/chat-worker/run-task";

const fence = { chatId: "c", workerId: "w", runnerId: "r", historyVersion: 1, status: "running" as const };
const stale = () => new FenceError(fence, { historyVersion: 2, status: "running", runnerId: "r", workerId: "w" });

function recorder() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe("exitOrRetry", () => {
  it("stale on a fence failure and chat_deleted on a missing chat, without a wait", async () => {
    const { sleep, waits } = recorder();
    const signal = new AbortController().signal;
    expect(await exitOrRetry("t", stale(), 0, signal, sleep)).toBe("stale");
    expect(await exitOrRetry("t", new ChatNotFoundError("c"), 3, signal, sleep)).toBe("chat_deleted");
    expect(waits).toEqual([]);
  });

  it("cancelled when the signal fired, whatever the body threw", async () => {
    const { sleep, waits } = recorder();
    const controller = new AbortController();
    controller.abort();
    expect(await exitOrRetry("t", new Error("connection reset"), 0, controller.signal, sleep)).toBe("cancelled");
    expect(await exitOrRetry("t", stale(), 0, controller.signal, sleep)).toBe("cancelled");
    expect(waits).toEqual([]);
  });

  it("retries an unexpected error after a doubling backoff, capped", async () => {
    const { sleep, waits } = recorder();
    const signal = new AbortController().signal;
    for (let failures = 0; failures < 10; failures++) {
      expect(await exitOrRetry("t", new Error("database unreachable"), failures, signal, sleep)).toBe("retry");
    }
    const expected = Array.from({ length: 10 }, (_, i) => Math.min(TASK_RETRY_MAX_MS, TASK_RETRY_INITIAL_MS * 2 ** i));
    expect(waits).toEqual(expected);
    expect(waits.at(-1)).toBe(TASK_RETRY_MAX_MS);
  });

  it("a cancellation during the backoff ends the task as cancelled", async () => {
    const controller = new AbortController();
    const exit = await exitOrRetry("t", new Error("boom"), 0, controller.signal, async () => {
      controller.abort();
      throw new Error("aborted");
    });
    expect(exit).toBe("cancelled");
    const quiet = new AbortController();
    // The sleep ended, but the task was cancelled meanwhile.
    expect(await exitOrRetry("t", new Error("boom"), 0, quiet.signal, async () => quiet.abort())).toBe("cancelled");
  });
});
