/**
 * One of the project's scripts run as the operator runs it: a child process of this Node with tsx,
 * in the repository, with the environment given (whole: what is not in `env` is not set).
 */
import { spawn } from "node:child_process";

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: process.cwd(), env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
