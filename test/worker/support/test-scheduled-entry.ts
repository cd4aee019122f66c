/**
 * The Worker as the e2e and client tests bundle it once for the run (scripts/lib/worker-bundle.ts):
 * src/index.ts, plus what `wrangler dev --test-scheduled` adds while it bundles, which a prebuilt
 * bundle started with `--no-bundle` does not get. GET /__scheduled runs the Cron Trigger's handler
 * and answers once it is done, as wrangler's own middleware does.
 */
import worker from "../../../src/index";

export { ChatObject, ChatWatchObject } from "../../../src/index";

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname !== "/__scheduled") return worker.fetch(request, env, ctx);
    const controller: ScheduledController = { cron: url.searchParams.get("cron") ?? "", scheduledTime: Date.now(), noRetry() {} };
    await worker.scheduled(controller, env, ctx);
    return new Response("Ran scheduled event");
  },
  scheduled: worker.scheduled,
} satisfies ExportedHandler<Env>;
