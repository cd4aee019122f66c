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
            const kept = message.content.flatMap((p): ChatInputPart[] => (p.type === "file" ? [{ type: "file", file_id: p.file_id }] : []));
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
      return (
        <div className="tool">
          Tool call <code>{part.tool_name}</code>
          <pre>{JSON.stringify(part.args, null, 2)}</pre>
        </div>
      );
    case "tool-result":
      return (
        <div className={`tool ${part.is_error ? "tool-error" : ""}`}>
          Result of <code>{part.tool_name}</code>
          <pre>{typeof part.result === "string" ? part.result : JSON.stringify(part.result, null, 2)}</pre>
        </div>
      );
    case "file":
      return <Attachment part={part} client={client} />;
  }
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
