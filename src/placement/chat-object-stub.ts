/**
 * The one way to reach a chat's Durable Object: by the chat's id, created near the region the
 * deployment names (CHAT_OBJECT_LOCATION_HINT, docs/placement.md). A location hint only matters
 * the first time an object is created; every caller passes it, since any of them may be the first
 * (a route, the cron sweep, another chat's object).
 */
import { configFromEnv } from "../config/env";

export function chatObjectStub(
  env: Env,
  name: string,
): DurableObjectStub<Env["CHAT_OBJECT"] extends DurableObjectNamespace<infer T> ? T : never> {
  const hint = configFromEnv(env).CHAT_OBJECT_LOCATION_HINT;
  return env.CHAT_OBJECT.get(env.CHAT_OBJECT.idFromName(name), hint === "" ? undefined : { locationHint: hint });
}
