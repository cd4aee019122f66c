/**
 * What one instance of a chat's object leaves to the next (docs/deploy.md "Restarts"): its worker
 * id and its chat's id, in the object's own storage. A Durable Object runs as one instance at a
 * time, so a lease held under this object's worker id with no runner here is a previous
 * instance's, cut off by a deploy or a crash: the worker reclaims it at once instead of waiting
 * for the lease to go stale and the cron sweep to come by. Fencing is unchanged: the reclaim is an
 * acquisition with a new runner id, so anything the old runner still tried to write is refused.
 *
 * The ids are read once, before the instance answers anything (blockConcurrencyWhile); the chat's
 * id is written the first time a call names it.
 */
import type { ObjectChatId } from "./object-chat-id";

const WORKER_ID = "worker_id";
const CHAT_ID = "chat_id";

export class Incarnation {
  #workerId: string | undefined;
  /** A previous instance of this object knew its chat: it may have left a lease behind. */
  #restarted = false;
  #startWakeTaken = false;
  #storedChatId: string | undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** Reads what the previous instance left; a first instance draws its worker id and keeps it. */
  async load(chatId: ObjectChatId): Promise<void> {
    const stored = await this.storage.get<string>([WORKER_ID, CHAT_ID]);
    const workerId = stored.get(WORKER_ID);
    this.#workerId = workerId ?? crypto.randomUUID();
    if (!workerId) await this.storage.put(WORKER_ID, this.#workerId);
    const chat = stored.get(CHAT_ID);
    if (chat) {
      this.#storedChatId = chat;
      chatId.seen(chat);
      this.#restarted = true;
    }
  }

  get workerId(): string {
    if (!this.#workerId) throw new Error("the object's worker id is read before it answers anything");
    return this.#workerId;
  }

  /** The chat's id, the first time a call names it, for the next instance. */
  chatSeen(chatId: string): void {
    if (this.#storedChatId === chatId) return;
    this.#storedChatId = chatId;
    void this.storage.put(CHAT_ID, chatId);
  }

  /** True once per instance, after a restart: the first alarm or socket wakes the worker to reclaim. */
  takeStartWake(): boolean {
    if (!this.#restarted || this.#startWakeTaken) return false;
    this.#startWakeTaken = true;
    return true;
  }
}
