/**
 * What one instance of a chat's object leaves to the next (docs/deploy.md "Restarts"): the worker
 * id its runner's lease is held under, and its chat's id, in the object's own storage, written
 * when the worker acquires the chat. A Durable Object runs as one instance at a time, so a fresh
 * lease under that worker id is the previous instance's, cut off by a deploy or a crash: the new
 * instance's first alarm (an owned chat always has its heartbeat tick due) has the worker reclaim
 * it at once, instead of waiting for the lease to go stale and the cron sweep to come by. Fencing
 * is unchanged: the reclaim is an acquisition with a new runner id, so anything the old runner
 * still tried to write is refused.
 *
 * Only an object that has acquired its chat writes here, and only the alarm reads: objects that
 * serve the API alone never touch their storage for it.
 */
const LEASE = "lease";

export interface LeftLease {
  readonly chatId: string;
  readonly workerId: string;
}

/** What of the object's storage it uses (DurableObjectStorage has these). */
export interface LeaseStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export class Incarnation {
  #remembered: string | undefined;
  #read = false;

  constructor(private readonly storage: LeaseStorage) {}

  /** The worker acquired `chatId` under `workerId`: the next instance may find its lease. */
  leaseTaken(chatId: string, workerId: string): void {
    const key = `${chatId}:${workerId}`;
    if (this.#remembered === key) return;
    this.#remembered = key;
    void this.storage.put<LeftLease>(LEASE, { chatId, workerId });
  }

  /**
   * The runner is gone: the next instance has nothing to reclaim. Without this, every instance
   * after an idle chat's hibernation would spend its first alarm probing a chat nobody owns.
   */
  leaseEnded(chatId: string, workerId: string): void {
    if (this.#remembered !== `${chatId}:${workerId}`) return;
    this.#remembered = undefined;
    void this.storage.delete(LEASE);
  }

  /** Once per instance: the lease a previous instance left, if it left one (null otherwise). */
  async leftByPrevious(): Promise<LeftLease | null> {
    if (this.#read) return null;
    this.#read = true;
    const left = await this.storage.get<LeftLease>(LEASE);
    if (!left || `${left.chatId}:${left.workerId}` === this.#remembered) return null;
    return left;
  }
}
