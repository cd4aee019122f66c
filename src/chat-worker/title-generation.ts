/**
 * Automatic title generation (docs/titles.md). It starts as soon as a root chat's first prompt
 * exists: when the chat is created with content, or by its first message; the turn's outcome does
 * not matter (a first turn that errors or waits on a client tool still gets a title). The write is
 * source `generated` under the ranking of chats/title.ts, so it never replaces a user title, even
 * one set while the call ran. Out of retries, the title is left as it was.
 *
 * Each call takes one of the chat's TITLE_MAX_ATTEMPTS first, in the database: the cron retries a
 * chat still without a generated title long after its last attempt (the object crashed, the model
 * was down), never more often than that and never in a loop.
 */
import { claimTitleAttempt, writeTitle } from "../chats/title";
import type { ChatStore } from "../chats/store";
import type { ChatMessagePart, ChatRow } from "../db/schema/chats";
import { TITLE_MAX_OUTPUT_TOKENS, titleFromModelText, titlePrompt } from "../llm/title";
import { errorText, logger } from "../log/log";
import { type BackgroundGenerationDeps, runBackgroundGeneration } from "./background-generation";

export interface TitleGeneratorDeps extends BackgroundGenerationDeps {
  store: Pick<ChatStore, "pool">;
  /** A title was written: tell the chat's stream clients. */
  titleChanged(chat: ChatRow): void;
}

/** Whether a chat takes a generated title: a root chat on a fallback title. */
export function wantsGeneratedTitle(chat: Pick<ChatRow, "titleSource" | "parentChatId">): boolean {
  // Child chats are named by whoever spawned them; their fallback title is the spawn prompt.
  return chat.titleSource === "fallback" && chat.parentChatId === null;
}

export class TitleGenerator {
  constructor(private readonly deps: TitleGeneratorDeps) {}

  /**
   * The chat's first prompt was committed (create with content, or the first message of a chat
   * created empty): start its title call in the background. Never throws, never waits.
   */
  firstPrompt(chat: ChatRow, prompt: readonly ChatMessagePart[]): void {
    // Without a worker no model is ever called (the API alone); the cron retries once one runs.
    if (!this.deps.config.CHAT_WORKER_ENABLED || !wantsGeneratedTitle(chat) || titlePrompt(prompt) === null) return;
    this.#start(chat.id, prompt);
  }

  /**
   * The cron found the chat without a generated title long after its last attempt: try again
   * with its first prompt as stored. Resolves once the call is started, not finished.
   */
  async retry(chatId: string): Promise<void> {
    if (!this.deps.config.CHAT_WORKER_ENABLED) return;
    const prompt = await firstUserPrompt(this.deps.store.pool, chatId);
    if (prompt) this.#start(chatId, prompt);
  }

  #start(chatId: string, prompt: readonly ChatMessagePart[]): void {
    this.deps.background(
      this.#generate(chatId, prompt).catch((err: unknown) =>
        logger.warn("title_generation_failed", { chat_id: chatId, error: errorText(err) }),
      ),
    );
  }

  async #generate(chatId: string, firstPrompt: readonly ChatMessagePart[]): Promise<void> {
    const prompt = titlePrompt(firstPrompt);
    if (!prompt) return;
    const { store } = this.deps;
    const chat = await claimTitleAttempt(store.pool, chatId);
    if (!chat) {
      logger.debug("title_generation_skipped", { chat_id: chatId });
      return;
    }
    const started = Date.now();
    const result = await runBackgroundGeneration(this.deps, chat, {
      purpose: "title",
      system: prompt.system,
      messages: prompt.messages,
      maxOutputTokens: TITLE_MAX_OUTPUT_TOKENS,
    });
    const title = titleFromModelText(result.text);
    if (title === null) {
      logger.info("title_generation_empty", { chat_id: chat.id, attempt: chat.titleAttempts });
      return;
    }
    const written = await writeTitle(store.pool, chat.id, title, "generated");
    logger.info("title_generated", {
      chat_id: chat.id,
      applied: written.applied,
      attempt: chat.titleAttempts,
      calls: result.attempts,
      ms: Date.now() - started,
    });
    if (written.applied) this.deps.titleChanged(written.chat);
  }
}

/** The chat's first user prompt as stored (the one its fallback title came from); null without one. */
async function firstUserPrompt(pool: TitleGeneratorDeps["store"]["pool"], chatId: string): Promise<ChatMessagePart[] | null> {
  const { rows } = await pool.query(
    `SELECT content FROM chat_messages
     WHERE chat_id = $1 AND role = 'user' AND NOT deleted AND NOT model_only
     ORDER BY id LIMIT 1`,
    [chatId],
  );
  const content = rows[0]?.content;
  return Array.isArray(content) ? (content as ChatMessagePart[]) : null;
}
