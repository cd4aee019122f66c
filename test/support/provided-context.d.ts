// What the globalSetups hand to tests (`inject("...")`).
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    wsProxy: string;
    /** NEON_PIPELINE_CONNECT for the stack's Postgres (scripts/lib/stack.ts) */
    pipelineConnect: "password" | "off";
    fakeModelUrl: string;
    /** The test MCP server of this project (scripts/test-mcp/server.ts): its endpoint and credentials. */
    mcpServer: { url: string; token: string; headerValue: string };
    /** This project's fake DNS-over-HTTPS resolver (test/support/fake-doh.ts), for CHAT_OUTBOUND_DNS_URL. */
    dohUrl: string;
    /** CHAT_OUTBOUND_ALLOW of the workerd projects: this project's MCP server's host:port and 127.0.0.1:9. */
    testOutboundAllow: string;
    /** hooks only: the test hook consumer (test/support/hook-consumer.ts), e.g. http://127.0.0.1:40123 */
    hookConsumerUrl: string;
    /** runner only: the OTLP/HTTP receiver its chats export spans and metrics to (scripts/lib/otlp-receiver.ts) */
    otlpReceiverUrl: string;
    /** e2e only: the running dev server's origin, e.g. http://127.0.0.1:8787 */
    baseUrl: string;
    /** e2e only: where that server's output (the Worker's and the objects' log lines) goes */
    e2eLogFile: string;
    /** client only: a `wrangler dev` with the chat worker on, seeded like `npm run dev` */
    clientBaseUrl: string;
    clientToken: string;
    /** The worker project's OpenID Connect provider (test/support/oidc-provider-setup.ts). */
    oidcIssuerUrl: string;
    /** The seeded owner's email and password, for the web app's sign-in. */
    clientEmail: string;
    clientPassword: string;
    clientOrganizationId: string;
    /** client only: the database that server runs on (a second server on it restarts like the first) */
    clientDatabaseUrl: string;
    /** e2e, client and contract: the Worker bundled once for the run, for every `wrangler dev` they start */
    workerBundle: string;
    /** client only: the Chromium the browser tests drive (scripts/lib/chromium.ts) */
    chromiumPath: string;
  }
}
export {};
