/**
 * `npm run smoke` (scripts/smoke.ts) against the client project's `wrangler dev`, whose chat worker
 * answers with the fake model: a run signed in with the seeded owner's password, one with a token,
 * and one with a token that is wrong.
 */
import { spawn } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import { sdk } from "./support";

interface SmokeRun {
  code: number | null;
  summary: { ok: boolean; chat_id?: string; failed_step?: string; status?: number; code?: string; steps: { step: string; ms: number }[] };
  /** The structured progress lines (scripts/lib/log.ts) the script wrote to stderr. */
  logs: { event: string; [field: string]: unknown }[];
}

function smoke(args: string[], env: Record<string, string> = {}): Promise<SmokeRun> {
  return new Promise((resolve, reject) => {
    // No CHATD_SMOKE_* from the environment the suite runs in: each run names its own credentials.
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("CHATD_SMOKE_")));
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/smoke.ts", ...args], {
      env: { ...clean, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const logs = stderr.split("\n").flatMap((line) => (line.startsWith("{") ? [JSON.parse(line)] : []));
      try {
        resolve({ code, summary: JSON.parse(stdout), logs });
      } catch {
        reject(new Error(`no summary on stdout (exit ${code}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

const stepLines = (run: SmokeRun) => run.logs.filter((l) => l.event === "smoke_step").map((l) => l.step);

describe("npm run smoke", () => {
  it.concurrent("signs in, chats, follows the answer on the stream, archives the chat and signs out", async () => {
    const run = await smoke([`${inject("clientBaseUrl")}/api/v2/`], {
      CHATD_SMOKE_EMAIL: inject("clientEmail"),
      CHATD_SMOKE_PASSWORD: inject("clientPassword"),
    });
    expect(run.code, JSON.stringify(run.logs)).toBe(0);
    expect(stepLines(run)).toEqual(["health", "sign_in", "create_chat", "open_stream", "send_message", "answer", "archive", "sign_out"]);
    for (const line of run.logs.filter((l) => l.event === "smoke_step")) expect(line.ms).toEqual(expect.any(Number));
    const answer = run.logs.find((l) => l.step === "answer");
    // The fake model echoes the prompt.
    expect(answer?.answer).toMatch(/^This is a smoke test/);
    // It leaves nothing active.
    const chat = await sdk().getChat({ chat: run.summary.chat_id ?? "" });
    expect([chat.archived, chat.status]).toEqual([true, "waiting"]);
  });

  it.concurrent("takes a token from --token", async () => {
    const run = await smoke([inject("clientBaseUrl"), "--token", inject("clientToken"), "--prompt", "smoke by token"]);
    expect(run.code, JSON.stringify(run.logs)).toBe(0);
    expect(stepLines(run)).toEqual(["health", "token", "create_chat", "open_stream", "send_message", "answer", "archive"]);
    expect(run.summary).toMatchObject({ ok: true, chat_id: expect.any(String) });
  });

  it.concurrent("fails naming the step and what came back when the token is wrong", async () => {
    const run = await smoke([inject("clientBaseUrl")], { CHATD_SMOKE_TOKEN: "wrong-token" });
    expect(run.code).toBe(1);
    expect(stepLines(run)).toEqual(["health"]);
    expect(run.logs.find((l) => l.event === "smoke_failed")).toMatchObject({ step: "token", status: 401, code: "unauthorized" });
    expect(run.summary).toMatchObject({ ok: false, failed_step: "token", status: 401, code: "unauthorized" });
  });
});
