/**
 * Debug runs for one chat object (docs/debug-runs.md): whether a chat's model calls are recorded
 * (CHAT_DEBUG_RUNS and the chat's own flag), a capture per call, and the write after the step's
 * commit, in the background: the turn never waits for it, and a failed write is logged, never the
 * turn's error.
 * The chat's MCP credentials are opened for the redaction then, off the turn's path.
 */
import type { Config } from "../config/env";
import type { Database } from "../db/database";
import type { Queryable } from "../db/rows";
import type { ChatRow } from "../db/schema/chats";
import type { DebugRunKind } from "../db/schema/debug-runs";
import { errorText, logger } from "../log/log";
import { openedMcpServer } from "../mcp/server-secrets";
import { mcpServersByIds } from "../mcp/servers";
import { type DebugCallIdentity, DebugCapture, type NewDebugRun } from "./capture";
import { insertDebugRuns } from "./store";

export type DebugRunsMode = Config["CHAT_DEBUG_RUNS"];

/** Whether the chat's calls are recorded under the deployment's mode. */
export function recordsDebugRuns(mode: DebugRunsMode, chat: Pick<ChatRow, "debugRuns">): boolean {
  return mode === "all" || (mode === "opt_in" && chat.debugRuns);
}

/** A model call about to be made for a chat that records: the model half of its identity comes with the client. */
export interface DebugCall {
  chatId: string;
  kind: DebugRunKind;
  traceId: string | null;
  /** Starts the capture once the model's identity is known (src/chat-worker/attributed-model.ts). */
  capture(model: Pick<DebugCallIdentity, "provider" | "model" | "modelConfigId" | "transport">): DebugCapture;
}

export interface DebugRecorderDeps {
  pool: Queryable;
  db: Database;
  config: Pick<Config, "CHAT_DEBUG_RUNS" | "CHAT_DEBUG_RUN_MAX_BYTES" | "CHAT_DEBUG_RUNS_PER_CHAT" | "CHAT_SECRETS_KEYS">;
  /** Keeps the write alive past the call (the object's waitUntil). */
  background(work: Promise<unknown>): void;
}

interface Pending {
  capture: DebugCapture;
  chat: Pick<ChatRow, "organizationId" | "mcpServerIds">;
}

export class DebugRecorder {
  readonly #pending: Pending[] = [];

  constructor(private readonly deps: DebugRecorderDeps) {}

  /** A call to record for `chat`, or undefined when its calls are not recorded. */
  call(chat: Pick<ChatRow, "id" | "debugRuns">, kind: DebugRunKind, traceId: string | null): DebugCall | undefined {
    if (!recordsDebugRuns(this.deps.config.CHAT_DEBUG_RUNS, chat)) return undefined;
    const maxBytes = this.deps.config.CHAT_DEBUG_RUN_MAX_BYTES;
    return { chatId: chat.id, kind, traceId, capture: (model) => new DebugCapture({ chatId: chat.id, kind, traceId, ...model }, maxBytes) };
  }

  /**
   * Keeps what `capture` saw for the next flush. The caller flushes once the step's own writes are
   * done (its commit): a write beside the commit would take the warm connection the commit needs.
   */
  save(capture: DebugCapture | undefined, chat: Pick<ChatRow, "organizationId" | "mcpServerIds">): void {
    if (capture && capture.requests > 0) this.#pending.push({ capture, chat });
  }

  /** Writes the saved captures, in the background, in one statement per chat. */
  flush(): void {
    const batch = this.#pending.splice(0);
    const first = batch[0];
    if (!first) return;
    const chatId = first.capture.identity.chatId;
    const started = performance.now();
    const work = this.#write(batch)
      .then((runs) => logger.debug("debug_runs_written", { chat_id: chatId, runs, ms: Math.round(performance.now() - started) }))
      .catch((err: unknown) => logger.warn("debug_runs_write_failed", { chat_id: chatId, error: errorText(err) }));
    this.deps.background(work);
  }

  async #write(batch: Pending[]): Promise<number> {
    let written = 0;
    // An object serves one chat: the batch is that chat's, read for its MCP credentials once.
    const secrets = new Map<string, string[]>();
    const byChat = new Map<string, NewDebugRun[]>();
    for (const { capture, chat } of batch) {
      const chatId = capture.identity.chatId;
      let known = secrets.get(chatId);
      if (!known) {
        known = await this.#mcpSecrets(chat);
        secrets.set(chatId, known);
      }
      const runs = capture.runs(known);
      byChat.set(chatId, [...(byChat.get(chatId) ?? []), ...runs]);
    }
    for (const [chatId, runs] of byChat) {
      await insertDebugRuns(this.deps.pool, chatId, runs, this.deps.config.CHAT_DEBUG_RUNS_PER_CHAT);
      written += runs.length;
    }
    return written;
  }

  /** The chat's MCP servers' bearer tokens and header values: what a tool result might echo. */
  async #mcpSecrets(chat: Pick<ChatRow, "organizationId" | "mcpServerIds">): Promise<string[]> {
    if (chat.mcpServerIds.length === 0) return [];
    const servers = await mcpServersByIds(this.deps.db, chat.organizationId, chat.mcpServerIds);
    const secrets: string[] = [];
    for (const server of servers) {
      const opened = await openedMcpServer(this.deps.config.CHAT_SECRETS_KEYS, server);
      if (opened.bearerToken) secrets.push(opened.bearerToken);
      secrets.push(...Object.values(opened.headers ?? {}));
    }
    return secrets;
  }
}
