/**
 * The chat's summary and turn status label (docs/titles.md "Summaries and status labels"): after
 * each turn of a root chat that finishes (FinishTurn committed), one background call to the chat's
 * model writes both fields from a bounded transcript. The turn never waits for it; a call out of
 * retries, or an answer without the two lines, leaves the chat as it was. A write names the history
 * version the turn ended at, so a slow call never replaces a later turn's summary.
 */
import { writeSummary } from "../chats/summary";
import type { ChatStore } from "../chats/store";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import { SUMMARY_MAX_OUTPUT_TOKENS, summaryFromModelText, summaryPrompt } from "../llm/summary";
import { errorText, logger } from "../log/log";
import type { ResolvedModelConfig } from "../model-configs/resolve";
import { type BackgroundGenerationDeps, runBackgroundGeneration } from "./background-generation";

export interface SummaryGeneratorDeps extends BackgroundGenerationDeps {
  store: Pick<ChatStore, "pool">;
  /** A summary was written: tell the chat's stream clients. */
  summaryChanged(chat: ChatRow): void;
}

export class SummaryGenerator {
  constructor(private readonly deps: SummaryGeneratorDeps) {}

  /**
   * A turn finished with `history` (its ending committed, `chat` as committed): start the one
   * summary call of this turn. Never throws, never waits. `model`: the model the turn just used.
   */
  afterTurn(chat: ChatRow, history: readonly ChatMessageRow[], model?: ResolvedModelConfig): void {
    // Subagents' chats are not in the chat list; their parent's turn summarizes what they did.
    if (chat.parentChatId !== null) return;
    const prompt = summaryPrompt(history);
    if (!prompt) return;
    this.deps.background(
      this.#generate(chat, prompt, model).catch((err: unknown) =>
        logger.warn("summary_generation_failed", { chat_id: chat.id, error: errorText(err) }),
      ),
    );
  }

  async #generate(
    chat: ChatRow,
    prompt: NonNullable<ReturnType<typeof summaryPrompt>>,
    model: ResolvedModelConfig | undefined,
  ): Promise<void> {
    const started = Date.now();
    const result = await runBackgroundGeneration(this.deps, chat, {
      purpose: "summary",
      system: prompt.system,
      messages: prompt.messages,
      maxOutputTokens: SUMMARY_MAX_OUTPUT_TOKENS,
      model,
    });
    const parsed = summaryFromModelText(result.text);
    if (parsed === null) {
      logger.info("summary_generation_unusable", { chat_id: chat.id, history_version: chat.historyVersion });
      return;
    }
    const written = await writeSummary(this.deps.store.pool, chat.id, { ...parsed, historyVersion: chat.historyVersion });
    logger.info("summary_generated", {
      chat_id: chat.id,
      applied: written !== null,
      history_version: chat.historyVersion,
      calls: result.attempts,
      ms: Date.now() - started,
    });
    if (written) this.deps.summaryChanged(written);
  }
}
