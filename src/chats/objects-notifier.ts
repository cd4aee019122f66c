/**
 * A Notifier for work outside any chat's object (the Cron Trigger, an account change in the
 * Worker): each notification goes to its chat's own object over RPC, as the object's store would
 * deliver it, kept alive past the call and logged when it fails. A lost one is healed by the
 * object's next sync poll or sweep.
 */
import type { Notifier } from "./notifier";
import { errorText, logger } from "../log/log";
import { chatObjectStub } from "../placement/chat-object-stub";

export function objectsNotifier(env: Env, waitUntil: (work: Promise<unknown>) => void, source: string): Notifier {
  const object = (id: string) => chatObjectStub(env, id);
  return {
    chatUpdated: (p) =>
      waitUntil(
        object(p.chat_id)
          .notify(p)
          .catch((err: unknown) => logger.warn(`${source}_notify_failed`, { chat_id: p.chat_id, error: errorText(err) })),
      ),
    ownershipHint: (h) =>
      waitUntil(
        object(h.chat_id)
          .wake(h)
          .catch((err: unknown) => logger.warn(`${source}_wake_failed`, { chat_id: h.chat_id, error: errorText(err) })),
      ),
  };
}
