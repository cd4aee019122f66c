// What the globalSetups hand to tests (`inject("...")`).
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    wsProxy: string;
    fakeModelUrl: string;
    /** hooks only: the test hook consumer (test/support/hook-consumer.ts), e.g. http://127.0.0.1:40123 */
    hookConsumerUrl: string;
    /** e2e only: the running dev server's origin, e.g. http://127.0.0.1:8787 */
    baseUrl: string;
    /** client only: a `wrangler dev` with the chat worker on, seeded like `npm run dev` */
    clientBaseUrl: string;
    clientToken: string;
    clientOrganizationId: string;
    /** client only: the Chromium the browser tests drive (scripts/lib/chromium.ts) */
    chromiumPath: string;
  }
}
export {};
