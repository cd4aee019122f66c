import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/env";

const valid = {
  DATABASE_URL: "postgres://u:p@127.0.0.1:5432/chatd",
  CHAT_MAX_ATTACHMENTS_PER_CHAT: "50",
  CHAT_MAX_GENERATION_RETRIES: "25",
  CHAT_MAX_STEPS_PER_TURN: "1200",
  CHAT_ROOT_CONCURRENCY: "5",
  CHAT_SUBAGENT_CONCURRENCY: "10",
  CHAT_HEARTBEAT_INTERVAL_MS: "9000",
  CHAT_STALE_THRESHOLD_MS: "30000",
  CHAT_REQUIRES_ACTION_TIMEOUT_MS: "300000",
  CHAT_STREAM_SYNC_POLL_MS: "10000",
  CHAT_AUTH_CACHE_MS: "5000",
  CHAT_MAX_QUEUED_MESSAGES: "20",
  CHAT_AUTO_ARCHIVE_DAYS: "90",
  CHAT_ARCHIVE_RETENTION_DAYS: "0",
  CHAT_WORKER_ENABLED: "true",
  LOG_LEVEL: "info",
  NEON_WS_PROXY: "",
  CHAT_SECRETS_KEYS: `k1:${Buffer.alloc(32, 1).toString("base64")}`,
};

describe("deployment options", () => {
  it("parses the spec's defaults into numbers", () => {
    const config = parseConfig(valid);
    expect(config.CHAT_MAX_GENERATION_RETRIES).toBe(25);
    expect(config.CHAT_MAX_STEPS_PER_TURN).toBe(1200);
    expect(config.CHAT_ROOT_CONCURRENCY).toBe(5);
    expect(config.NEON_WS_PROXY).toBe("");
  });

  it("turns hooks off by default and requires a signing secret with a hook URL", () => {
    const off = parseConfig(valid);
    expect(off.CHAT_HOOK_URL).toBe("");
    expect(off.CHAT_HOOK_ADMISSION_PERCENT).toBe(50);
    expect(() => parseConfig({ ...valid, CHAT_HOOK_URL: "https://policy.example/hook" })).toThrow(
      "CHAT_HOOK_SECRET must be at least 16 characters when CHAT_HOOK_URL is set",
    );
    const on = parseConfig({
      ...valid,
      CHAT_HOOK_URL: "https://policy.example/hook",
      CHAT_HOOK_SECRET: "0123456789abcdef",
      CHAT_HOOK_CONCURRENCY: "4",
    });
    expect(on.CHAT_HOOK_CONCURRENCY).toBe(4);
    expect(() => parseConfig({ ...valid, CHAT_HOOK_URL: "ftp://x" })).toThrow("CHAT_HOOK_URL must be empty (hooks off) or an http(s) URL");
    expect(() => parseConfig({ ...valid, CHAT_HOOK_ADMISSION_PERCENT: "150" })).toThrow("CHAT_HOOK_ADMISSION_PERCENT must be at most 100");
  });

  it("retries a model call after 1 s by default, and refuses a first backoff under 10 ms", () => {
    expect(parseConfig(valid).CHAT_RETRY_INITIAL_DELAY_MS).toBe(1_000);
    expect(parseConfig({ ...valid, CHAT_RETRY_INITIAL_DELAY_MS: "400" }).CHAT_RETRY_INITIAL_DELAY_MS).toBe(400);
    expect(() => parseConfig({ ...valid, CHAT_RETRY_INITIAL_DELAY_MS: "5" })).toThrow(/CHAT_RETRY_INITIAL_DELAY_MS must be at least 10/);
    expect(() => parseConfig({ ...valid, CHAT_RETRY_INITIAL_DELAY_MS: "soon" })).toThrow(
      /CHAT_RETRY_INITIAL_DELAY_MS must be a whole number/,
    );
  });

  it("bounds sessions and sign-in failures by default, and refuses a session maximum under its idle lifetime", () => {
    const config = parseConfig(valid);
    expect(config.CHAT_SESSION_IDLE_SECONDS).toBe(86_400);
    expect(config.CHAT_SESSION_MAX_SECONDS).toBe(2_592_000);
    expect(config.CHAT_SIGN_IN_MAX_FAILURES).toBe(5);
    expect(config.CHAT_SIGN_IN_LOCKOUT_SECONDS).toBe(60);
    expect(() => parseConfig({ ...valid, CHAT_SESSION_IDLE_SECONDS: "7200", CHAT_SESSION_MAX_SECONDS: "3600" })).toThrow(
      "CHAT_SESSION_MAX_SECONDS must be at least CHAT_SESSION_IDLE_SECONDS",
    );
    expect(() => parseConfig({ ...valid, CHAT_SIGN_IN_MAX_FAILURES: "0" })).toThrow(/CHAT_SIGN_IN_MAX_FAILURES must be at least 1/);
    expect(config.CHAT_PASSWORD_HASH_ITERATIONS).toBe(100_000);
    expect(() => parseConfig({ ...valid, CHAT_PASSWORD_HASH_ITERATIONS: "200000" })).toThrow(/at most 100000/);
    expect(() => parseConfig({ ...valid, CHAT_PASSWORD_HASH_ITERATIONS: "1000" })).toThrow(/at least 10000/);
  });

  it("reads the allowed origins as a list, and refuses what is not an origin", () => {
    expect(parseConfig(valid).CHAT_ALLOWED_ORIGINS).toEqual([]);
    expect(parseConfig({ ...valid, CHAT_ALLOWED_ORIGINS: "https://Chat.Example.com, http://localhost:5173" }).CHAT_ALLOWED_ORIGINS).toEqual(
      ["https://chat.example.com", "http://localhost:5173"],
    );
    for (const bad of ["chat.example.com", "https://chat.example.com/app", "https://a.example,", "*"]) {
      expect(() => parseConfig({ ...valid, CHAT_ALLOWED_ORIGINS: bad })).toThrow(/CHAT_ALLOWED_ORIGINS must be origins/);
    }
  });

  it("turns single sign-on off by default, and needs the client and allowed domains with an issuer", () => {
    expect(parseConfig(valid).OIDC_ISSUER).toBe("");
    expect(() => parseConfig({ ...valid, OIDC_ISSUER: "https://id.example.com" })).toThrow(
      "OIDC_ISSUER needs OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_ALLOWED_DOMAINS",
    );
    const on = parseConfig({
      ...valid,
      OIDC_ISSUER: "https://id.example.com",
      OIDC_CLIENT_ID: "chatd",
      OIDC_CLIENT_SECRET: "s3cret",
      OIDC_ALLOWED_DOMAINS: "Example.com, team.example.com",
    });
    expect(on.OIDC_ALLOWED_DOMAINS).toEqual(["example.com", "team.example.com"]);
    expect(() => parseConfig({ ...valid, OIDC_ISSUER: "id.example.com" })).toThrow(/OIDC_ISSUER must be empty/);
  });

  it("accepts 0 as unlimited concurrency", () => {
    expect(parseConfig({ ...valid, CHAT_ROOT_CONCURRENCY: "0" }).CHAT_ROOT_CONCURRENCY).toBe(0);
  });

  it("gives each tenant a share of the pools by default, and 0 turns a share off", () => {
    const config = parseConfig(valid);
    expect([config.CHAT_ROOT_CONCURRENCY_PER_USER, config.CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION]).toEqual([2, 3]);
    expect([config.CHAT_SUBAGENT_CONCURRENCY_PER_USER, config.CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION]).toEqual([5, 6]);
    expect(parseConfig({ ...valid, CHAT_ROOT_CONCURRENCY_PER_USER: "0" }).CHAT_ROOT_CONCURRENCY_PER_USER).toBe(0);
    expect(() => parseConfig({ ...valid, CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION: "-1" })).toThrow(
      /CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION must be a whole number/,
    );
  });

  it("rejects a bad value with a message naming the setting, never a silent default", () => {
    expect(() => parseConfig({ ...valid, CHAT_MAX_STEPS_PER_TURN: "lots" })).toThrow(/CHAT_MAX_STEPS_PER_TURN must be a whole number/);
    expect(() => parseConfig({ ...valid, CHAT_MAX_ATTACHMENTS_PER_CHAT: "0" })).toThrow(/CHAT_MAX_ATTACHMENTS_PER_CHAT must be at least 1/);
    expect(() => parseConfig({ ...valid, LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
  });

  it("takes a chat object location hint among Cloudflare's regions, empty by default", () => {
    expect(parseConfig(valid).CHAT_OBJECT_LOCATION_HINT).toBe("");
    expect(parseConfig({ ...valid, CHAT_OBJECT_LOCATION_HINT: "weur" }).CHAT_OBJECT_LOCATION_HINT).toBe("weur");
    expect(() => parseConfig({ ...valid, CHAT_OBJECT_LOCATION_HINT: "europe" })).toThrow(
      /CHAT_OBJECT_LOCATION_HINT must be empty or one of wnam/,
    );
  });

  it("serves the Worker's routes over the Neon driver unless told Hyperdrive", () => {
    expect(parseConfig(valid).WORKER_DB_DRIVER).toBe("neon");
    expect(parseConfig({ ...valid, WORKER_DB_DRIVER: "hyperdrive" }).WORKER_DB_DRIVER).toBe("hyperdrive");
    expect(() => parseConfig({ ...valid, WORKER_DB_DRIVER: "pg" })).toThrow(/WORKER_DB_DRIVER must be "neon" or "hyperdrive"/);
  });

  it("pipelines a local connect only when told to", () => {
    expect(parseConfig(valid).NEON_PIPELINE_CONNECT).toBe("off");
    expect(parseConfig({ ...valid, NEON_PIPELINE_CONNECT: "password" }).NEON_PIPELINE_CONNECT).toBe("password");
    expect(() => parseConfig({ ...valid, NEON_PIPELINE_CONNECT: "scram" })).toThrow(/NEON_PIPELINE_CONNECT must be "off" or "password"/);
  });

  it("lists every problem at once", () => {
    try {
      parseConfig({ ...valid, DATABASE_URL: "mysql://x", CHAT_ROOT_CONCURRENCY: "-1", NEON_WS_PROXY: "nope" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toHaveLength(3);
    }
  });

  it("requires the secrets' keys, validated, and never repeats a key in its message", () => {
    const { CHAT_SECRETS_KEYS: _omit, ...rest } = valid;
    expect(() => parseConfig(rest)).toThrow(/CHAT_SECRETS_KEYS is required: comma-separated kid:base64key entries/);
    expect(() => parseConfig({ ...valid, CHAT_SECRETS_KEYS: "" })).toThrow(/CHAT_SECRETS_KEYS is required/);
    const short = Buffer.alloc(31, 2).toString("base64");
    expect(() => parseConfig({ ...valid, CHAT_SECRETS_KEYS: `k2:${short}` })).toThrow(/key "k2" must be 32 bytes/);
    expect(() => parseConfig({ ...valid, CHAT_SECRETS_KEYS: `k2:${short}` })).not.toThrow(short);
    expect(() => parseConfig({ ...valid, CHAT_SECRETS_KEYS: `${valid.CHAT_SECRETS_KEYS},${valid.CHAT_SECRETS_KEYS}` })).toThrow(
      /names key "k1" twice/,
    );
    const ring = parseConfig({
      ...valid,
      CHAT_SECRETS_KEYS: `new:${Buffer.alloc(32, 3).toString("base64")},${valid.CHAT_SECRETS_KEYS}`,
    }).CHAT_SECRETS_KEYS;
    expect([ring.currentId, ring.ids]).toEqual(["new", ["new", "k1"]]);
  });

  it("allows no outbound host by default, parses the allow-list and refuses a bad entry or resolver", () => {
    const config = parseConfig(valid);
    expect(config.CHAT_OUTBOUND_ALLOW).toEqual([]);
    expect(config.CHAT_OUTBOUND_DNS_URL).toBe("https://cloudflare-dns.com/dns-query");
    expect(config.CHAT_MCP_TOOL_OUTPUT_MAX_BYTES).toBe(65_536);
    expect(parseConfig({ ...valid, CHAT_OUTBOUND_ALLOW: "127.0.0.1:9, mcp.corp.example" }).CHAT_OUTBOUND_ALLOW).toEqual([
      { host: "127.0.0.1", port: 9 },
      { host: "mcp.corp.example", port: null },
    ]);
    expect(() => parseConfig({ ...valid, CHAT_OUTBOUND_ALLOW: "ok.example,https://x.example/" })).toThrow(
      'CHAT_OUTBOUND_ALLOW must be host or host:port entries separated by commas, not "https://x.example/"',
    );
    expect(() => parseConfig({ ...valid, CHAT_OUTBOUND_DNS_URL: "1.1.1.1" })).toThrow(/CHAT_OUTBOUND_DNS_URL must be the http\(s\) URL/);
    expect(() => parseConfig({ ...valid, CHAT_MCP_TOOL_OUTPUT_MAX_BYTES: "100" })).toThrow(
      /CHAT_MCP_TOOL_OUTPUT_MAX_BYTES must be at least 1024/,
    );
  });

  it("records debug runs of opted-in chats by default, within bounds, and refuses a bad mode or bound", () => {
    const config = parseConfig(valid);
    expect(config.CHAT_DEBUG_RUNS).toBe("opt_in");
    expect(config.CHAT_DEBUG_RUN_MAX_BYTES).toBe(262_144);
    expect(config.CHAT_DEBUG_RUN_RETENTION_HOURS).toBe(72);
    expect(config.CHAT_DEBUG_RUNS_PER_CHAT).toBe(100);
    expect(parseConfig({ ...valid, CHAT_DEBUG_RUNS: "all" }).CHAT_DEBUG_RUNS).toBe("all");
    expect(() => parseConfig({ ...valid, CHAT_DEBUG_RUNS: "on" })).toThrow('CHAT_DEBUG_RUNS must be "off", "opt_in" or "all"');
    expect(() => parseConfig({ ...valid, CHAT_DEBUG_RUN_MAX_BYTES: "100" })).toThrow(/CHAT_DEBUG_RUN_MAX_BYTES must be at least 4096/);
    expect(() => parseConfig({ ...valid, CHAT_DEBUG_RUN_RETENTION_HOURS: "0" })).toThrow(
      /CHAT_DEBUG_RUN_RETENTION_HOURS must be at least 1/,
    );
    expect(() => parseConfig({ ...valid, CHAT_DEBUG_RUNS_PER_CHAT: "5000" })).toThrow(/CHAT_DEBUG_RUNS_PER_CHAT must be at most 1000/);
  });

  it("requires DATABASE_URL", () => {
    const { DATABASE_URL: _omit, ...rest } = valid;
    expect(() => parseConfig(rest)).toThrow(/DATABASE_URL is required/);
  });

  it("bounds the idle poll: 0 or between the active poll and 5 minutes", () => {
    expect(parseConfig(valid).CHAT_STREAM_IDLE_POLL_MS).toBe(60_000);
    expect(parseConfig({ ...valid, CHAT_STREAM_IDLE_POLL_MS: "0" }).CHAT_STREAM_IDLE_POLL_MS).toBe(0);
    expect(() => parseConfig({ ...valid, CHAT_STREAM_IDLE_POLL_MS: "5000" })).toThrow(
      "CHAT_STREAM_IDLE_POLL_MS must be 0 or at least CHAT_STREAM_SYNC_POLL_MS",
    );
    expect(() => parseConfig({ ...valid, CHAT_STREAM_IDLE_POLL_MS: "600000" })).toThrow("CHAT_STREAM_IDLE_POLL_MS must be at most 300000");
  });

  it("bounds the chat list watch: its poll between 1 s and 5 minutes, its sockets at least 1", () => {
    const config = parseConfig(valid);
    expect(config.CHAT_WATCH_POLL_MS).toBe(20_000);
    expect(config.CHAT_MAX_WATCH_SOCKETS_PER_USER).toBe(10);
    expect(parseConfig({ ...valid, CHAT_WATCH_POLL_MS: "5000" }).CHAT_WATCH_POLL_MS).toBe(5_000);
    expect(() => parseConfig({ ...valid, CHAT_WATCH_POLL_MS: "600000" })).toThrow("CHAT_WATCH_POLL_MS must be at most 300000");
    expect(() => parseConfig({ ...valid, CHAT_WATCH_POLL_MS: "500" })).toThrow(/CHAT_WATCH_POLL_MS/);
    expect(() => parseConfig({ ...valid, CHAT_MAX_WATCH_SOCKETS_PER_USER: "0" })).toThrow(/CHAT_MAX_WATCH_SOCKETS_PER_USER/);
  });
});
