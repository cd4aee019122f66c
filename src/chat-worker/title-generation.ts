/**
 * Automatic title generation: after a root chat's turn finishes, a chat still carrying its
 * fallback title gets one from the chat's model, in the background (the turn never waits for it).
 * The write is source `generated` under the ranking of db/title.ts, so it never replaces a user
 * title, even one set while the call ran. Out of retries, the title is left as it was.
 *
 * At most one attempt per chat and object instance: a failed title is tried again after the
 * object restarts and another turn finishes, never in a loop.
 */
import type { ObjectTracing } from "../observability/object-tracing";
import { stageModel } from "./task-tracing";
import { activeRows } from "../llm/active-history";
import { backgroundModelCall } from "../llm/background-call";
import { TITLE_MAX_OUTPUT_TOKENS, titleFromModelText, titlePrompt } from "../llm/title";
import { writeTitle } from "../chats/title";
import type { ChatMessageRow, ChatRow } from "../db/schema/chats";
import { errorText, logger } from "../log/log";
import { attributedModel } from "./attributed-model";
import { attributionFor } from "./attribution";
import { modelForTurn } from "./model-for-turn";
import type { ResolvedModelConfig } from "../model-configs/resolve";
import type { RunnerDeps } from "./task-context";

export interface TitleGeneratorDeps extends Pick<RunnerDeps, "store" | "db" | "config" | "sleep" | "fetch" | "now" | "attributionKeys"> {
  /** Keeps work beside the turn alive in the runtime (DurableObjectState.waitUntil). */
  background(work: Promise<unknown>): void;
  /** A title was written: tell the chat's stream clients. */
  titleChanged(chat: ChatRow): void;
  /** The title's model call is a background stage, a trace root of its own. */
  tracing?: Pick<ObjectTracing, "tracer" | "flush">;
}

/** Whether a finished turn should start a title call for this chat. */
export function wantsGeneratedTitle(chat: Pick<ChatRow, "titleSource" | "parentChatId">): boolean {
  // Child chats are named by whoever spawned them; their fallback title is the spawn prompt.
  return chat.titleSource === "fallback" && chat.parentChatId === null;
}

export class TitleGenerator {
  readonly #attempted = new Set<string>();

  constructor(private readonly deps: TitleGeneratorDeps) {}

  /**
   * Called when a turn finished: starts the title call when the chat wants one. Never throws.
   * `model`: the model the turn just used, when known; the title then reads no config of its own.
   */
  afterTurn(chat: ChatRow, history: readonly ChatMessageRow[], model?: ResolvedModelConfig): void {
    if (!wantsGeneratedTitle(chat) || this.#attempted.has(chat.id)) return;
    const first = activeRows(history).find((row) => row.role === "user" && !row.modelOnly);
    const prompt = first ? titlePrompt(first.content) : null;
    if (!prompt) return;
    this.#attempted.add(chat.id);
    this.deps.background(
      this.#generate(chat, prompt, model).catch((err: unknown) =>
        logger.warn("title_generation_failed", { chat_id: chat.id, error: errorText(err) }),
      ),
    );
  }

  async #generate(
    chat: ChatRow,
    prompt: NonNullable<ReturnType<typeof titlePrompt>>,
    turnModel: ResolvedModelConfig | undefined,
  ): Promise<void> {
    const { db, config, store } = this.deps;
    // The same model and attribution a turn of this chat would use (a suspended owner: no title).
    // The attribution is the object's, cached; the model, the turn's own when it ended in a call:
    // a read of its own would open a second connection beside the release's admission scan.
    const [resolved, attribution] = await Promise.all([turnModel ?? modelForTurn(db, chat), attributionFor(this.deps, chat)]);
    const model = await attributedModel(resolved, attribution, config.CHAT_SECRETS_KEYS, { fetch: this.deps.fetch });
    const started = Date.now();
    const stage = this.deps.tracing?.tracer.start("stream", {
      identity: { scope: "background", chatKind: "root" },
      model: stageModel(resolved, model.client.transport, null),
      attributes: { purpose: "title", chat_id: chat.id },
    });
    const call = backgroundModelCall({
      model: model.client.model,
      system: prompt.system,
      messages: prompt.messages,
      maxOutputTokens: TITLE_MAX_OUTPUT_TOKENS,
      // The config's default effort, not the chat's: a title needs little thought.
      providerOptions: model.providerOptions(),
      maxRetries: config.CHAT_MAX_GENERATION_RETRIES,
      retryInitialMs: config.CHAT_RETRY_INITIAL_DELAY_MS,
      // Background work is not the turn's: an interrupt or a new message does not cancel it.
      abortSignal: new AbortController().signal,
      sleep: this.deps.sleep,
    });
    const result = await call.then(
      (r) => {
        stage?.end();
        return r;
      },
      (err: unknown) => {
        stage?.end({ error: err });
        throw err;
      },
    );
    this.deps.tracing?.flush();
    const title = titleFromModelText(result.text);
    if (title === null) {
      logger.info("title_generation_empty", { chat_id: chat.id });
      return;
    }
    const written = await writeTitle(store.pool, chat.id, title, "generated");
    logger.info("title_generated", { chat_id: chat.id, applied: written.applied, attempts: result.attempts, ms: Date.now() - started });
    if (written.applied) this.deps.titleChanged(written.chat);
  }
}
