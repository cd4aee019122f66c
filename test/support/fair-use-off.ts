/**
 * Worker vars that turn fair admission's per-user and per-organization shares off: suites whose
 * one test user runs many chats at once (runners, chaos, restarts) are not about fairness, and
 * would otherwise wait behind their own share. The fairness tests set shares of their own.
 */
export const NO_TENANT_SHARES: Readonly<Record<string, string>> = {
  CHAT_ROOT_CONCURRENCY_PER_USER: "0",
  CHAT_ROOT_CONCURRENCY_PER_ORGANIZATION: "0",
  CHAT_SUBAGENT_CONCURRENCY_PER_USER: "0",
  CHAT_SUBAGENT_CONCURRENCY_PER_ORGANIZATION: "0",
};
