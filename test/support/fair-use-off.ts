/**
 * Worker vars that turn fair use off (docs/fairness.md): no per-user or per-organization shares of
 * the pools, no rate limits, socket quotas far above any suite's. Suites whose one test user runs
 * many chats, requests and sockets at once (runners, chaos, restarts, the SDK) are not about
 * fairness and would otherwise wait behind their own share or limit. The hostile-tenant suite runs
 * with the defaults.
 */
export const FAIR_USE_OFF: Readonly<Record<string, string>> = {
  CHAT_ROOT_CONCURRENCY_PER_USER: "0",
  CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION: "0",
  CHAT_SUBAGENT_CONCURRENCY_PER_USER: "0",
  CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION: "0",
  CHAT_RATE_LIMITS_ENABLED: "false",
  CHAT_MAX_SOCKETS_PER_CHAT: "10000",
  CHAT_MAX_SOCKETS_PER_USER_PER_CHAT: "10000",
};
