/**
 * One chat, live: the history and the streaming preview from its stream, the queue, pending tool
 * calls, the chat's actions, and the composer. Every action is an SDK call; what it changes comes
 * back through the stream, so two tabs show the same chat.
 */
import { useEffect, useState } from "react";
import { type Chat, ChatdError, type ChatdClient, type ChatWatch } from "../../client/src/index";
import { StatusBadge } from "./chat-list";
import { Composer } from "./composer";
import { type Account, useChatStream, useNow } from "./hooks";
import { MessageView, PreviewView } from "./messages";
import { TurnTimeline } from "./turn-timeline";
import { ChatCost } from "./cost";

export function ChatView(props: {
  client: ChatdClient;
  watch: ChatWatch | null;
  chatId: string;
  account: Account | null;
  onChanged: () => void;
  onBack: () => void;
}) {
  const { client, chatId } = props;
  const live = useChatStream(client, chatId);
  const [chat, setChat] = useState<Chat | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [showTurns, setShowTurns] = useState(false);
  const status = live?.state.status ?? chat?.status ?? null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the row (archived, model) is read again when the status changes
  useEffect(() => {
    void client
      .getChat({ chat: chatId })
      .then(setChat)
      .catch(() => {});
  }, [client, chatId, status]);

  // Title, summary and plan mode follow the chat list watch (the stream does not carry them).
  const { watch } = props;
  useEffect(() => watch?.on("event", (event) => event.chat.id === chatId && setChat(event.chat as Chat)), [watch, chatId]);

  /** PATCH answers 204 with no body (as Coder's clients expect): the chat is read again after it. */
  const updateThenRead = async (body: Parameters<ChatdClient["updateChat"]>[0]["body"]) => {
    await client.updateChat({ chat: chatId, body });
    setChat(await client.getChat({ chat: chatId }));
  };

  /** Runs an action; a refusal (409 and the like) is shown, not thrown. */
  const act = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setActionError(null);
    try {
      await fn();
      props.onChanged();
      return true;
    } catch (err) {
      setActionError(err instanceof ChatdError ? `${err.message}${err.detail ? ` ${err.detail}` : ""}` : String(err));
      return false;
    }
  };

  if (live?.fatal) {
    return (
      <section className="chat">
        <p role="alert" className="error banner">
          {live.fatal.message} {live.fatal.detail}
        </p>
      </section>
    );
  }
  const state = live?.state;
  const title = chat?.title ?? "";
  // The chat's summary, newest from the watch, as the heading's tooltip (docs/web-app.md).
  const summary = chat?.summary ?? null;
  const busy = status === "running" || status === "interrupting" || status === "requires_action";
  // Plan mode (docs/plan-mode.md): as the watch or this view's own switch last left the chat.
  const planMode = chat?.plan_mode === "plan";
  return (
    <section className="chat" aria-label={`Chat ${title}`}>
      <header className="chat-head">
        <button type="button" className="back" onClick={props.onBack} aria-label="Back to chats">
          ←
        </button>
        <h2 title={summary ?? undefined}>{title || "New chat"}</h2>
        <StatusBadge status={status} />
        <ChatCost client={client} chatId={chatId} status={status} />
        {planMode && (
          <span className="badge badge-plan" title="The model plans with read-only tools; switch plan mode off to let it act">
            planning
          </span>
        )}
        {live && !live.connected && (
          <span className="badge badge-offline" role="status">
            {live.stream.connections > 1 ? "reconnecting…" : "connecting…"}
          </span>
        )}
        <div className="actions">
          {busy && (
            <button type="button" onClick={() => act(() => client.interrupt({ chat: chatId }))}>
              Stop
            </button>
          )}
          <button
            type="button"
            aria-pressed={planMode}
            title="Plan mode: the model plans with read-only tools only"
            onClick={() => act(() => updateThenRead({ plan_mode: planMode ? "" : "plan" }))}
          >
            Plan
          </button>
          <button type="button" onClick={() => act(() => client.compact({ chat: chatId }))}>
            Compact
          </button>
          <button type="button" onClick={() => act(() => client.clear({ chat: chatId }))}>
            Clear
          </button>
          <button
            type="button"
            // Archiving stops a running chat (and its subagents) first instead of refusing.
            onClick={() => {
              const body = chat?.archived ? { archived: false } : { archived: true, interrupt: true };
              act(() => updateThenRead(body));
            }}
          >
            {chat?.archived ? "Unarchive" : "Archive"}
          </button>
          <button type="button" aria-pressed={showTurns} onClick={() => setShowTurns(!showTurns)}>
            Turns
          </button>
        </div>
      </header>
      {actionError && (
        <p role="alert" className="error banner">
          {actionError}
        </p>
      )}
      {state?.error && (
        <div role="alert" className="error banner">
          <strong>{state.error.message}</strong>
          {state.error.detail && <pre className="detail">{state.error.detail}</pre>}
        </div>
      )}
      {showTurns && <TurnTimeline client={client} chatId={chatId} status={status} historyVersion={state?.historyVersion ?? 0} />}
      {state?.retry && <RetryCountdown retryingAt={state.retry.retrying_at} attempt={state.retry.attempt} error={state.retry.error} />}
      <ol className="messages" aria-live="polite">
        {state?.messages.map((m) => (
          <MessageView
            key={m.id}
            message={m}
            client={client}
            onEdit={(content) => act(() => client.editMessage({ chat: chatId, message: m.id, body: { content } }))}
          />
        ))}
        {state?.preview && <PreviewView preview={state.preview} />}
      </ol>
      {state?.actionRequired && state.actionRequired.length > 0 && (
        <ToolCallsForm
          calls={state.actionRequired}
          onSubmit={(results) => act(() => client.submitToolResults({ chat: chatId, body: { results } }))}
        />
      )}
      {state && state.queue.length > 0 && (
        <section className="queue" aria-label="Queued messages">
          <h3>Queued</h3>
          <ol>
            {state.queue.map((q) => (
              <li key={q.id}>
                <span className="queued-text">{q.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join(" ")}</span>
                <button type="button" onClick={() => act(() => client.promoteQueuedMessage({ chat: chatId, queued: q.id }))}>
                  Promote
                </button>
                <button type="button" onClick={() => act(() => client.deleteQueuedMessage({ chat: chatId, queued: q.id }))}>
                  Delete
                </button>
              </li>
            ))}
          </ol>
        </section>
      )}
      <Composer
        client={client}
        account={props.account}
        busy={busy}
        defaultModel={chat?.last_model_config_id ?? null}
        onSend={(body) => act(() => client.sendMessage({ chat: chatId, body }))}
      />
    </section>
  );
}

function RetryCountdown({ retryingAt, attempt, error }: { retryingAt: string; attempt: number; error: string }) {
  const now = useNow(250);
  const seconds = Math.max(0, Math.ceil((Date.parse(retryingAt) - now) / 1000));
  return (
    <p role="status" className="retry banner">
      Attempt {attempt} failed ({error}); retrying in {seconds} s
    </p>
  );
}

function ToolCallsForm({
  calls,
  onSubmit,
}: {
  /** `args` is the call's arguments as JSON text, shown as sent. */
  calls: { tool_call_id: string; tool_name: string; args: string }[];
  onSubmit: (results: { tool_call_id: string; output: unknown; is_error?: boolean }[]) => void;
}) {
  const [outputs, setOutputs] = useState<Record<string, string>>({});
  return (
    <form
      className="tool-calls"
      aria-label="Pending tool calls"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(calls.map((c) => ({ tool_call_id: c.tool_call_id, output: parseOutput(outputs[c.tool_call_id] ?? "") })));
      }}
    >
      <h3>The model is waiting for your tool results</h3>
      {calls.map((c) => (
        <div key={c.tool_call_id} className="tool-call">
          <label htmlFor={`out-${c.tool_call_id}`}>
            Result of <code>{c.tool_name}</code>({c.args})
          </label>
          <textarea
            id={`out-${c.tool_call_id}`}
            value={outputs[c.tool_call_id] ?? ""}
            onChange={(e) => setOutputs({ ...outputs, [c.tool_call_id]: e.target.value })}
          />
        </div>
      ))}
      <button type="submit">Send results</button>
    </form>
  );
}

/** JSON when it parses, the text otherwise. */
function parseOutput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
