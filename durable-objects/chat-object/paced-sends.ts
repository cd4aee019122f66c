/**
 * Large frames to the object's stream sockets, sent a few megabytes per turn of the event loop.
 *
 * A committed reply goes to every open socket as one `message` event. With a thousand sockets and
 * a 1 MB reply, sending them all in one task queued a gigabyte in workerd, since a Worker's
 * WebSocket queues every message it is given and reports nothing of what it still holds (no
 * `bufferedAmount`). Between two turns of the event loop workerd hands what it queued to the
 * kernel, so sending at most WAVE_BYTES of large frames per turn keeps what workerd holds at about
 * that much, as long as the sockets' kernel buffers take it.
 *
 * A socket's frames stay in order: once one of its frames waits, everything after it (small
 * frames and the close included) waits behind it. Small frames to a socket with nothing waiting
 * go out at once, so parts and status events pay nothing.
 */
import { errorText, logger } from "../../src/log/log";
import { nextTask } from "../../src/next-task";

/** Frames at least this long (UTF-16 units, about bytes for JSON) are paced. */
export const LARGE_FRAME_CHARS = 64 * 1024;
/** Large frames' bytes sent per turn of the event loop (at least one frame per turn). */
export const WAVE_BYTES = 8 * 1024 * 1024;

/** The part of a WebSocket the pacer uses. */
export interface PacedSocket {
  send(frame: string): void;
  close(code: number, reason: string): void;
}

type Outgoing = { frame: string } | { close: { code: number; reason: string } };

export class PacedSends<S extends PacedSocket = PacedSocket> {
  /** Sockets with frames waiting, in the order they started waiting (each turn resumes in that order). */
  readonly #waiting = new Map<S, Outgoing[]>();
  #scheduled = false;

  constructor(
    /** What a turn waits for before the next wave (default: one macrotask). */
    private readonly nextTurn: () => Promise<void> = nextTask,
  ) {}

  /** Sends `frame` now, or after the frames already waiting for this socket. Throws like `send` when it sends now. */
  send(socket: S, frame: string): void {
    const queue = this.#waiting.get(socket);
    if (queue === undefined && frame.length < LARGE_FRAME_CHARS) {
      socket.send(frame);
      return;
    }
    this.#enqueue(socket, queue, { frame });
  }

  /** Closes the socket now, or after its waiting frames. */
  close(socket: S, code: number, reason: string): void {
    const queue = this.#waiting.get(socket);
    if (queue === undefined) socket.close(code, reason);
    else queue.push({ close: { code, reason } });
  }

  /** The socket is gone: its waiting frames are dropped. */
  forget(socket: S): void {
    this.#waiting.delete(socket);
  }

  /** Sockets with frames waiting (for tests and memory accounting). */
  get waiting(): number {
    return this.#waiting.size;
  }

  #enqueue(socket: S, queue: Outgoing[] | undefined, item: Outgoing): void {
    if (queue) queue.push(item);
    else this.#waiting.set(socket, [item]);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    void this.nextTurn().then(() => this.#wave());
  }

  /** One turn's wave: frames in order, socket by socket, until WAVE_BYTES of large frames went out. */
  #wave(): void {
    this.#scheduled = false;
    let budget = WAVE_BYTES;
    for (const [socket, queue] of this.#waiting) {
      while (queue.length > 0) {
        const item = queue[0]!;
        const large = "frame" in item && item.frame.length >= LARGE_FRAME_CHARS;
        if (large && item.frame.length > budget && budget < WAVE_BYTES) {
          this.#schedule();
          return;
        }
        queue.shift();
        try {
          if ("frame" in item) socket.send(item.frame);
          else socket.close(item.close.code, item.close.reason);
        } catch (err) {
          // Closed meanwhile: its close handler stops the loop; nothing more goes to it.
          logger.info("stream_write_failed", { error: errorText(err) });
          queue.length = 0;
        }
        if (large) budget -= item.frame.length;
      }
      this.#waiting.delete(socket);
    }
  }
}
