import { mkdirSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { FAIR_USE_OFF } from "./test/support/fair-use-off";
import { TEST_SECRETS_KEYS } from "./scripts/lib/test-secrets-keys";

// One `vitest run` for every layer. Each project is a layer of the stack:
//   unit    pure modules, no I/O
//   node    Node-side code against the real Postgres, proxy and fake model
//   worker  the API inside workerd (@cloudflare/vitest-plugin), same Postgres through the proxy
//   runner  chats running by themselves inside workerd, against the fake model
//   eviction  chat objects evicted by workerd while clients watch
//   e2e     a running `wrangler dev` over real HTTP and WebSocket
//   contract  Coder's chat clients' recorded wire, judged against a running `wrangler dev`
// The stack (Postgres, migrations, proxy, fake model) starts once per run and is shared.
const STACK = "./test/support/stack-setup.ts";

// The files of a project share their worker (`isolate: false`), except in e2e and client, whose
// files each start a `wrangler dev` of their own. Isolated, each file of a workerd project started
// a Miniflare of its own and imported the whole Worker again, 5 to 15 s per file and a third of
// the run. Every test makes its own users, organizations and chats, so no file sees another's rows.
const SHARED_WORKER = { isolate: false } as const;

// expect.poll's default wait. Since vitest 5 a poll also gives up on a callback still running at its
// timeout (vitest 4 waited for it); the default second is shorter than one API round trip takes on
// a loaded 2-core machine. Polls that wait on something slow name their own timeout.
const POLL = { expect: { poll: { timeout: 5_000 } } } as const;

// wrangler.toml serves the web app's build as static assets and refuses a missing folder; the
// `client` project builds it (test/support/client-setup.ts), the other projects only need it to exist.
mkdirSync("./dist/web", { recursive: true });

/**
 * Chats that run by themselves (projects runner and hooks), with test config only: short timers so
 * retries and deadlines play out in seconds. The stale threshold stays well above a heartbeat tick
 * under a loaded CI machine (a tick may take up to a third of it): these tests are not about
 * takeover (the e2e lifecycle test is).
 */
const RUNNER_TIMERS = {
  CHAT_HEARTBEAT_INTERVAL_MS: "2000",
  CHAT_STALE_THRESHOLD_MS: "10000",
  // Long enough for a test to answer a tool call on a loaded machine, short enough to wait out.
  CHAT_REQUIRES_ACTION_TIMEOUT_MS: "6000",
  CHAT_MAX_GENERATION_RETRIES: "2",
  // Retries play out in a second (0.4 s, then 0.8 s), still long enough to see the retry state.
  CHAT_RETRY_INITIAL_DELAY_MS: "400",
  CHAT_ROOT_CONCURRENCY: "0",
  ...FAIR_USE_OFF,
  CHAT_STREAM_SYNC_POLL_MS: "2000",
};

/** A project inside workerd, reaching the shared stack's Postgres through its proxy, with its own vars. */
function workersProject(
  name: string,
  include: string,
  testTimeout: number,
  vars: Record<string, string>,
  extra: { globalSetup?: string[]; injected?: Record<string, "hookConsumerUrl" | "otlpReceiverUrl" | "oidcIssuerUrl"> } = {},
) {
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            DATABASE_URL: inject("databaseUrl"),
            NEON_WS_PROXY: inject("wsProxy"),
            NEON_PIPELINE_CONNECT: inject("pipelineConnect"),
            // Outbound requests (docs/hardening.md): names resolve through the project's fake resolver;
            // only its MCP server and 127.0.0.1:9 skip the address checks (test/support/stack-setup.ts).
            CHAT_OUTBOUND_DNS_URL: inject("dohUrl"),
            CHAT_OUTBOUND_ALLOW: inject("testOutboundAllow"),
            // The fixed test keys, which Node-side test code seals with too (docs/hardening.md).
            CHAT_SECRETS_KEYS: TEST_SECRETS_KEYS,
            ...vars,
            // Vars whose value a globalSetup only knows at run time (the hook consumer's address).
            ...Object.fromEntries(Object.entries(extra.injected ?? {}).map(([name, key]) => [name, inject(key)])),
          },
        },
      })),
    ],
    test: { name, include: [include], globalSetup: [STACK, ...(extra.globalSetup ?? [])], testTimeout, ...SHARED_WORKER, ...POLL },
  };
}

export default defineConfig({
  test: {
    // Most tests wait on Postgres, workerd or the fake model, not on a core: run files side by side
    // even on this 2-core machine (the default of cores - 1 would run them one at a time). Three
    // lanes, not two: the e2e and client files are long and mostly waiting, and with two lanes the
    // run was over five minutes (312-327 s against 269 s with three, quiet, in session 24).
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          ...SHARED_WORKER,
          ...POLL,
        },
      },
      {
        test: {
          name: "node",
          include: ["test/db/**/*.test.ts", "test/node/**/*.test.ts"],
          environment: "node",
          ...SHARED_WORKER,
          ...POLL,
          globalSetup: [STACK],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      workersProject(
        "worker",
        "test/worker/**/*.test.ts",
        30_000,
        {
          // Test config only: a small cap so eviction is reachable with a few uploads.
          CHAT_MAX_ATTACHMENTS_PER_CHAT: "3",
          // The API alone: chats stay where each request leaves them.
          CHAT_WORKER_ENABLED: "false",
          ...FAIR_USE_OFF,
          // A location hint on (docs/placement.md): local workerd accepts and ignores it, so the whole
          // API runs through the stub path a deployment with a region set uses.
          CHAT_OBJECT_LOCATION_HINT: "weur",
          // A short trust window for keys the chat objects read (test/worker/object-auth.test.ts).
          CHAT_AUTH_CACHE_MS: "2000",
          // The chat list watch's catch-up poll and credential check (test/worker/chat-watch.test.ts).
          CHAT_WATCH_POLL_MS: "2000",
          // POST /users/first on, behind this secret (test/worker/users.test.ts).
          CHAT_BOOTSTRAP_SECRET: "worker-project-bootstrap-secret",
          // One info line per request would bury the output (the tenancy suite makes thousands):
          // warnings and errors only. LOG_LEVEL=info in the environment brings them back.
          LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
          // Single sign-on against the project's own OpenID Connect provider (test/support/oidc-provider-setup.ts).
          OIDC_CLIENT_ID: "chatd-test",
          OIDC_CLIENT_SECRET: "chatd-test-client-secret",
          OIDC_ALLOWED_DOMAINS: "sso.example.com",
          OIDC_ORGANIZATION: "sso-team",
        },
        { globalSetup: ["./test/support/oidc-provider-setup.ts"], injected: { OIDC_ISSUER: "oidcIssuerUrl" } },
      ),
      workersProject(
        "runner",
        "test/runner/**/*.test.ts",
        60_000,
        // A step limit a turn of tool calls reaches in seconds (test/runner/turns.test.ts); the fake
        // model's other turns take two steps at most. A small MCP output cap, reached by one echo
        // (test/runner/mcp-tools.test.ts).
        { ...RUNNER_TIMERS, CHAT_MAX_STEPS_PER_TURN: "3", CHAT_MCP_TOOL_OUTPUT_MAX_BYTES: "4096" },
        // Turn spans and stage metrics go to the project's own OTLP receiver (test/runner/tracing.test.ts).
        { globalSetup: ["./test/support/otlp-receiver-setup.ts"], injected: { OTEL_EXPORTER_OTLP_ENDPOINT: "otlpReceiverUrl" } },
      ),
      workersProject(
        "hooks",
        "test/hooks/**/*.test.ts",
        60_000,
        {
          // The runner project's timers, plus lifecycle hooks pointed at the test consumer, which
          // this project alone starts (test/support/hook-consumer-setup.ts): no other project's
          // chats send events. Small caps so the dispatch cap is reachable with a few tool calls.
          ...RUNNER_TIMERS,
          CHAT_HOOK_SECRET: "test-hook-secret-0123456789",
          CHAT_HOOK_TIMEOUT_MS: "3000",
          CHAT_HOOK_OBJECT_CONCURRENCY: "2",
          CHAT_HOOK_CONCURRENCY: "16",
          CHAT_HOOK_ADMISSION_PERCENT: "50",
          // One step per turn: a tool call reaches the step limit, where the stop hook may go one past it.
          CHAT_MAX_STEPS_PER_TURN: "1",
        },
        { globalSetup: ["./test/support/hook-consumer-setup.ts"], injected: { CHAT_HOOK_URL: "hookConsumerUrl" } },
      ),
      workersProject("eviction", "test/eviction/**/*.test.ts", 90_000, {
        // The runner's timers, with nothing for an idle object to do: no sync poll for a minute and
        // idle database connections closed at once, so workerd can evict it (test/eviction/).
        ...RUNNER_TIMERS,
        CHAT_STREAM_SYNC_POLL_MS: "60000",
        CHAT_DB_IDLE_CONNECTION_MS: "300",
        LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      }),
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: [STACK, "./test/support/e2e-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          ...POLL,
        },
      },
      {
        // Coder's own clients against the service (test/contract/, docs/api.md "Coder compatibility"):
        // the recorded shapes, then one session on a `wrangler dev` of its own with the chat worker on.
        test: {
          name: "contract",
          include: ["test/contract/**/*.test.ts"],
          environment: "node",
          globalSetup: [STACK, "./test/support/contract-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          ...POLL,
        },
      },
      {
        // The SDK (client/) and the web app (web/) against a `wrangler dev` with the chat worker
        // on and the fake model; the browser tests drive Debian's chromium through playwright-core.
        test: {
          name: "client",
          include: ["test/client/**/*.test.ts"],
          environment: "node",
          globalSetup: [STACK, "./test/support/client-setup.ts"],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          ...POLL,
        },
      },
    ],
  },
});
