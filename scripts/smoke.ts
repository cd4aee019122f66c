/**
 * `npm run smoke -- <base-url>`: an end-to-end check of a running instance, after every deploy
 * (scripts/lib/smoke.ts runs the steps). Credentials, first found wins: --token, --email with
 * --password, CHATD_SMOKE_TOKEN, CHATD_SMOKE_EMAIL with CHATD_SMOKE_PASSWORD, and for the local
 * `npm run dev` (no base URL, or its own) the seeded owner in .data/dev-credentials.json.
 * A progress line per step on stderr with its duration, a summary on stdout; exit 1 names the step
 * that failed and what came back, exit 2 is a usage error.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { log } from "./lib/log";
import { DEV_CREDENTIALS_FILE } from "./lib/paths";
import { runSmoke, type SmokeAuth, SmokeFailure, type StepResult } from "./lib/smoke";

const USAGE =
  "usage: npm run smoke -- [BASE_URL] [--token T | --email E --password P] [--prompt TEXT] [--organization ID] " +
  "[--model-config ID] [--timeout SECONDS] [--answer-timeout SECONDS]";
// The fake model echoes it; a real model answers a word, cheaply.
const DEFAULT_PROMPT = "This is a smoke test of the deployment. Reply with one word: pong.";

function usage(error: string): never {
  log("error", "smoke_usage", { error: `${error}\n${USAGE}` });
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        token: { type: "string" },
        email: { type: "string" },
        password: { type: "string" },
        prompt: { type: "string", default: DEFAULT_PROMPT },
        organization: { type: "string" },
        "model-config": { type: "string" },
        timeout: { type: "string", default: "15" },
        // A real provider may take a while to answer; the fake model answers in well under a second.
        "answer-timeout": { type: "string", default: "120" },
      },
    });
  } catch (err) {
    usage(err instanceof Error ? err.message : String(err));
  }
}

const { values, positionals } = parse();
if (positionals.length > 1) usage("one base URL at most");

interface DevCredentials {
  base_url: string;
  email: string;
  password: string;
}
const dev = existsSync(DEV_CREDENTIALS_FILE) ? (JSON.parse(readFileSync(DEV_CREDENTIALS_FILE, "utf8")) as DevCredentials) : undefined;

const rawUrl = positionals[0] ?? dev?.base_url;
if (!rawUrl) usage(`no base URL, and no ${DEV_CREDENTIALS_FILE} from npm run dev`);
const baseUrl = origin(rawUrl);
const auth = credentials();

function origin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    usage(`not a URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") usage(`not an http(s) URL: ${raw}`);
  // The service's origin and path prefix: https://host, https://host/api/v2 and https://host/ alike.
  return `${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/api\/v2$/, "")}`;
}

function credentials(): SmokeAuth {
  const env = process.env;
  if (values.token) return { token: values.token };
  if (values.email || values.password) {
    if (!values.email || !values.password) usage("--email and --password go together");
    return { email: values.email, password: values.password };
  }
  if (env.CHATD_SMOKE_TOKEN) return { token: env.CHATD_SMOKE_TOKEN };
  if (env.CHATD_SMOKE_EMAIL && env.CHATD_SMOKE_PASSWORD) return { email: env.CHATD_SMOKE_EMAIL, password: env.CHATD_SMOKE_PASSWORD };
  // The dev stack's owner, only for the dev stack itself.
  if (dev && origin(dev.base_url) === baseUrl) return { email: dev.email, password: dev.password };
  usage("no credentials: --token, --email and --password, CHATD_SMOKE_TOKEN, or CHATD_SMOKE_EMAIL and CHATD_SMOKE_PASSWORD");
}

function seconds(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) usage(`--${name} must be a positive number of seconds, got "${raw}"`);
  return Math.round(n * 1000);
}

const started = performance.now();
const steps: StepResult[] = [];
log("info", "smoke_started", { base_url: baseUrl, auth: "token" in auth ? "token" : "password" });
try {
  const { chatId } = await runSmoke(
    {
      baseUrl,
      auth,
      prompt: values.prompt,
      organizationId: values.organization,
      modelConfigId: values["model-config"],
      stepTimeoutMs: seconds("timeout", values.timeout),
      answerTimeoutMs: seconds("answer-timeout", values["answer-timeout"]),
    },
    (result) => {
      steps.push(result);
      log("info", "smoke_step", result);
    },
  );
  const totalMs = Math.round(performance.now() - started);
  log("info", "smoke_passed", { ms: totalMs });
  process.stdout.write(`${JSON.stringify({ ok: true, base_url: baseUrl, chat_id: chatId, ms: totalMs, steps }, null, 2)}\n`);
} catch (err) {
  if (!(err instanceof SmokeFailure)) throw err;
  log("error", "smoke_failed", { step: err.step, ms: err.ms, ...err.failure });
  process.stdout.write(
    `${JSON.stringify({ ok: false, base_url: baseUrl, failed_step: err.step, ...err.failure, ms: Math.round(performance.now() - started), steps }, null, 2)}\n`,
  );
  process.exitCode = 1;
}
