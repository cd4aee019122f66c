/**
 * One `GET /chats/{chat}/stream/parts` WebSocket (spec "Parts endpoint"): the client selects an
 * episode with `{history_version, generation_attempt}`; the socket then carries that episode's
 * buffered parts and its live ones, `seq` contiguous from 1. Selecting another episode stops the
 * previous one without reconnecting; a missing episode is not an error (the subscription waits).
 */
import { z } from "zod";
import type { StreamPart } from "../../src/wire/stream-part";
import { errorText, logger } from "../../src/log/log";
import { episodeKey, type PartBuffer } from "../../src/part-buffer/part-buffer";
import type { PartSubscription } from "../../src/part-buffer/part-subscription";

const Selection = z.object({ history_version: z.number().int().min(0), generation_attempt: z.number().int().min(0) }).strict();

/** Close code for a control message we cannot parse: a client bug, not worth a retry loop. */
export const CLOSE_INVALID_SELECTION = 4400;

export interface PartsSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
}

export class PartsSession {
  #current: PartSubscription<StreamPart> | null = null;

  constructor(
    private readonly chatId: string,
    private readonly buffer: PartBuffer<StreamPart>,
    private readonly socket: PartsSocket,
  ) {}

  /** A control message from the client. */
  onMessage(data: string): void {
    let selection: z.infer<typeof Selection>;
    try {
      selection = Selection.parse(JSON.parse(data));
    } catch {
      this.socket.close(CLOSE_INVALID_SELECTION, "expected {history_version, generation_attempt}");
      this.stop();
      return;
    }
    this.stop();
    const subscription = this.buffer.subscribe(episodeKey(this.chatId, selection.history_version, selection.generation_attempt));
    this.#current = subscription;
    void this.#pump(subscription, selection.history_version, selection.generation_attempt);
  }

  stop(): void {
    this.#current?.close();
    this.#current = null;
  }

  async #pump(subscription: PartSubscription<StreamPart>, historyVersion: number, generationAttempt: number): Promise<void> {
    try {
      for (;;) {
        const next = await subscription.next();
        if (next.done || this.#current !== subscription) return;
        this.socket.send(
          JSON.stringify({
            history_version: historyVersion,
            generation_attempt: generationAttempt,
            seq: next.value.seq,
            part: next.value.part,
          }),
        );
      }
    } catch (err) {
      logger.warn("parts_socket_send_failed", { chat_id: this.chatId, error: errorText(err) });
      subscription.close();
    }
  }
}
