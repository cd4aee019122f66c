/** A committed message (with editing for user messages) and the streaming preview. */
import { useMemo, useState } from "react";
import type { ChatInputPart, ChatMessage, ChatMessagePart, ChatdClient, Preview } from "../../client/src/index";
import { Attachment } from "./attachment";
import { renderMarkdown } from "./markdown";

export function MessageView({
  message,
  client,
  onEdit,
}: {
  message: ChatMessage;
  client: ChatdClient;
  onEdit: (content: ChatInputPart[]) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  if (editing !== null) {
    return (
      <li className={`message ${message.role}`}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            // Attachments and file references stay with the edited text.
            const kept = message.content.flatMap((p): ChatInputPart[] =>
              p.type === "file" ? [{ type: "file", file_id: p.file_id }] : p.type === "file-reference" ? [p] : [],
            );
            onEdit([...(editing.trim() ? [{ type: "text" as const, text: editing }] : []), ...kept]);
            setEditing(null);
          }}
        >
          <label htmlFor={`edit-${message.id}`}>Edit message</label>
          <textarea id={`edit-${message.id}`} value={editing} onChange={(e) => setEditing(e.target.value)} />
          <button type="submit">Save and rerun</button>
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      </li>
    );
  }
  return (
    <li className={`message ${message.role}`} data-message-id={message.id}>
      <div className="role">{message.role}</div>
      {positional(message.content).map(([key, part]) => (
        <Part key={key} part={part} client={client} markdown={message.role === "assistant"} />
      ))}
      {message.role === "user" && (
        <button
          type="button"
          className="link edit"
          onClick={() => setEditing(message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n"))}
        >
          Edit
        </button>
      )}
    </li>
  );
}

/** `markdown`: the model's text is rendered (./markdown.ts); a person's is shown as typed. */
function Part({ part, client, markdown }: { part: ChatMessagePart; client: ChatdClient; markdown: boolean }) {
  switch (part.type) {
    case "text":
      return markdown ? <Markdown text={part.text} /> : <div className="text">{part.text}</div>;
    case "reasoning":
      return (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <div>{part.text}</div>
        </details>
      );
    case "tool-call":
      // A tool the provider ran itself (web search) is marked; it is shown as a search, not as a call to run.
      if (part.provider_executed) return <ProviderToolCall toolName={part.tool_name} args={part.args} />;
      return (
        <div className="tool">
          Tool call <code>{part.tool_name}</code>
          <pre>{JSON.stringify(part.args, null, 2)}</pre>
        </div>
      );
    case "tool-result":
      if (part.provider_executed) return <ProviderToolResult toolName={part.tool_name} result={part.result} isError={part.is_error} />;
      return (
        <div className={`tool ${part.is_error ? "tool-error" : ""}`}>
          Result of <code>{part.tool_name}</code>
          <pre>{typeof part.result === "string" ? part.result : JSON.stringify(part.result, null, 2)}</pre>
        </div>
      );
    case "file":
      return <Attachment part={part} client={client} />;
    case "file-reference":
      return (
        <div className="tool file-reference">
          <code>
            {part.file_name}:{part.start_line === part.end_line ? part.start_line : `${part.start_line}-${part.end_line}`}
          </code>
          <pre>{part.content}</pre>
        </div>
      );
    case "source":
      return <SourceLink url={part.url} title={part.title} />;
  }
}

/** A tool the provider ran itself (web search): what it was asked. */
function ProviderToolCall({ toolName, args }: { toolName: string; args: unknown }) {
  const query = typeof args === "object" && args !== null && "query" in args ? String((args as { query: unknown }).query) : null;
  return (
    <div className="tool provider-tool">
      {toolName === "web_search" ? "Web search" : <code>{toolName}</code>}
      {query ? <span className="query"> “{query}”</span> : null}
    </div>
  );
}

/** Its result: the pages found, as links, or the error. */
function ProviderToolResult({ toolName, result, isError }: { toolName: string; result: unknown; isError: boolean }) {
  const pages = pagesOf(result);
  if (isError || pages === null) {
    return (
      <div className={`tool provider-tool ${isError ? "tool-error" : ""}`}>
        Result of <code>{toolName}</code>
        <pre>{JSON.stringify(result, null, 2)}</pre>
      </div>
    );
  }
  return (
    <ul className="tool provider-tool pages">
      {pages.map((page) => (
        <li key={page.url}>
          <SourceLink url={page.url} title={page.title} />
        </li>
      ))}
    </ul>
  );
}

/** Search results (Anthropic's list, OpenAI's `sources`) as url and title. */
function pagesOf(result: unknown): { url: string; title?: string | undefined }[] | null {
  const list = Array.isArray(result)
    ? result
    : typeof result === "object" && result !== null && Array.isArray((result as { sources?: unknown }).sources)
      ? (result as { sources: unknown[] }).sources
      : null;
  if (list === null) return null;
  return list.flatMap((item) => {
    if (typeof item !== "object" || item === null || typeof (item as { url?: unknown }).url !== "string") return [];
    const { url, title } = item as { url: string; title?: unknown };
    return [{ url, title: typeof title === "string" ? title : undefined }];
  });
}

/** A link only for http(s) pages: a provider's URL is shown, never run (no javascript: links). */
function SourceLink({ url, title }: { url: string; title?: string | undefined }) {
  const safe = /^https?:\/\//i.test(url);
  return (
    <div className="source">
      {safe ? (
        <a href={url} target="_blank" rel="noopener noreferrer nofollow">
          {title ?? url}
        </a>
      ) : (
        <span>{title ?? url}</span>
      )}
    </div>
  );
}

export function PreviewView({ preview }: { preview: Preview }) {
  return (
    <li className="message assistant streaming" aria-busy="true">
      <div className="role">assistant</div>
      {positional(preview.blocks).map(([key, b]) =>
        b.kind === "text" ? (
          <Markdown key={key} text={b.text} />
        ) : b.kind === "reasoning" ? (
          <details key={key} className="reasoning" open>
            <summary>Reasoning</summary>
            <div>{b.text}</div>
          </details>
        ) : b.kind === "provider-tool" ? (
          <div key={key}>
            <ProviderToolCall toolName={b.toolName} args={b.args} />
            {b.complete ? <ProviderToolResult toolName={b.toolName} result={b.result} isError={b.isError ?? false} /> : null}
          </div>
        ) : b.kind === "source" ? (
          <SourceLink key={key} url={b.url} title={b.title} />
        ) : (
          <div key={key} className="tool">
            Tool call <code>{b.toolName}</code>
            <pre>{b.argsText}</pre>
          </div>
        ),
      )}
      <span className="cursor" aria-hidden="true">
        ▍
      </span>
    </li>
  );
}

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // Sanitized by renderMarkdown: only Markdown's own tags and safe links.
  // biome-ignore lint/security/noDangerouslySetInnerHtml: the point of the sanitizer
  return <div className="text markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Parts have no ids and only ever grow at the end: their position is their identity. */
function positional<T>(items: readonly T[]): [string, T][] {
  return items.map((item, n) => [String(n), item]);
}
