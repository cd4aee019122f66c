/**
 * The Worker of R3's notification fault suite (test/e2e/notification-faults.test.ts): the test
 * entry with `/__scheduled`, and a ChatObject whose every published message passes through the
 * fault injector (test/support/notification-faults.ts) when CHAT_TEST_NOTIFICATION_FAULTS names a
 * plan. The suite bundles it once (scripts/lib/worker-bundle.ts); a deployment never does.
 */
import { ChatObject as DeployedChatObject } from "../../../src/index";
import type { Notifier } from "../../../src/chats/notifier";
import { notificationFaults } from "../../support/notification-faults";

export { default } from "./test-scheduled-entry";
export { ChatWatchObject } from "../../../src/index";

export class ChatObject extends DeployedChatObject {
  protected override notifier(notifier: Notifier): Notifier {
    const faults = notificationFaults(this.env, (work) => this.ctx.waitUntil(work));
    return faults ? faults.notifier(notifier) : notifier;
  }
}
