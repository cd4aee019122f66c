/**
 * The chat an object serves. An object is named by its chat's id (`idFromName(chatId)`), which
 * cannot be read back, so the object learns it from the first call, notification or restored
 * socket that names it.
 */
export class ObjectChatId {
  #id: string | undefined;

  get value(): string | undefined {
    return this.#id;
  }

  /** A call named the chat: the first one sets it. */
  seen(chatId: string): void {
    this.#id ??= chatId;
  }

  require(): string {
    if (!this.#id) throw new Error("the object does not know its chat yet");
    return this.#id;
  }
}
