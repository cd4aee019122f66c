/**
 * The chat an object serves. An object is named by its chat's id (`idFromName(chatId)`), which
 * cannot be read back, so the object learns it from the first call, notification or restored
 * socket that names it.
 */
export class ObjectChatId {
  #id: string | undefined;

  /** `learned`: told the id the first time it is set (the object keeps it for its next instance). */
  constructor(private readonly learned: (chatId: string) => void = () => {}) {}

  get value(): string | undefined {
    return this.#id;
  }

  /** A call named the chat: the first one sets it. */
  seen(chatId: string): void {
    if (this.#id !== undefined) return;
    this.#id = chatId;
    this.learned(chatId);
  }

  require(): string {
    if (!this.#id) throw new Error("the object does not know its chat yet");
    return this.#id;
  }
}
