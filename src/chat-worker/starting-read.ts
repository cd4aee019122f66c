/**
 * The starting read: the chat and history as a commit left them (the acquisition's, or a task's
 * own commit), handed by the runner to the one task spawned for that very row, so that task starts
 * without reading the chat back. A retry of the task, or a task for any other row, reads for itself.
 */
import { checkFence, type Fence } from "./fence";
import type { ChatSnapshot } from "./fenced-db";

/** The runner's side: at most one read waiting for the task of its row. */
export class StartingReads {
  #waiting: ChatSnapshot | undefined;
  #stopped = false;

  /** A commit left the chat as `read`: the task spawned for that row starts from it. */
  leave(read: ChatSnapshot | undefined): void {
    if (!this.#stopped) this.#waiting = read;
  }

  /** The read for the task spawned on the event of `snapshotVersion`: the waiting one if it is that row's. Either way none waits after. */
  forTask(snapshotVersion: number): StartingRead {
    const read = this.#waiting?.chat.snapshotVersion === snapshotVersion ? this.#waiting : undefined;
    this.#waiting = undefined;
    return new StartingRead(read, this);
  }

  stop(): void {
    this.#stopped = true;
    this.#waiting = undefined;
  }
}

/** A task's side: the read it may start from, taken once; and where its own commit leaves the next one. */
export class StartingRead {
  #read: ChatSnapshot | undefined;

  constructor(
    read: ChatSnapshot | undefined,
    private readonly reads: StartingReads,
  ) {
    this.#read = read;
  }

  /** The read, the first time only (a retry reads again); its chat must be the fence's. */
  take(fence: Fence): ChatSnapshot | undefined {
    const read = this.#read;
    this.#read = undefined;
    if (read) checkFence(read.chat, fence);
    return read;
  }

  /** This task's commit left the chat as `read`: call it after COMMIT, before that commit's notification is handled. */
  leave(read: ChatSnapshot): void {
    this.reads.leave(read);
  }
}
