/**
 * The one way to reach a user's chat list watch object (docs/stream.md "The chat list watch"): by
 * the user's id, near the region the deployment names, as chat objects are (chat-object-stub.ts).
 */
import { configFromEnv } from "../config/env";

export function chatWatchStub(
  env: Env,
  userId: string,
): DurableObjectStub<Env["CHAT_WATCH"] extends DurableObjectNamespace<infer T> ? T : never> {
  const hint = configFromEnv(env).CHAT_OBJECT_LOCATION_HINT;
  return env.CHAT_WATCH.get(env.CHAT_WATCH.idFromName(userId), hint === "" ? undefined : { locationHint: hint });
}
