/**
 * The composer: text, attachments (uploaded first, sent as file parts), the model and its
 * reasoning effort, and send. While the chat is busy, send either queues or interrupts.
 */
import { useState } from "react";
import type { ChatInputPart, ChatdClient, OperationInput, Operations } from "../../client/src/index";
import { REASONING_EFFORTS } from "../../src/model-configs/options";
import type { Account } from "./hooks";

type SendBody = OperationInput<Operations["sendMessage"]>["body"];
type Effort = NonNullable<SendBody["reasoning_effort"]>;

export function Composer(props: {
  client: ChatdClient;
  account: Account | null;
  busy: boolean;
  defaultModel: string | null;
  /** Resolves false when the API refused it (the chat view shows why). */
  onSend: (body: SendBody) => Promise<boolean>;
}) {
  const { client, account } = props;
  const [text, setText] = useState("");
  const [files, setFiles] = useState<{ id: string; name: string }[]>([]);
  const [uploading, setUploading] = useState(false);
  const [model, setModel] = useState<string>("");
  const [effort, setEffort] = useState<Effort | "">("");
  const configs = account?.configs ?? [];
  const chosen = configs.find((c) => c.id === (model || props.defaultModel)) ?? configs.find((c) => c.is_default);
  const maxEffort = chosen?.options.reasoning_effort?.max;
  const efforts = maxEffort ? REASONING_EFFORTS.slice(0, REASONING_EFFORTS.indexOf(maxEffort) + 1) : [];

  const send = async (busyBehavior: "queue" | "interrupt") => {
    const content: ChatInputPart[] = [
      ...(text.trim() ? [{ type: "text" as const, text }] : []),
      ...files.map((f) => ({ type: "file" as const, file_id: f.id })),
    ];
    if (content.length === 0) return;
    // Cleared at once, so the next message can be typed while this one is on its way.
    setText("");
    setFiles([]);
    const sent = await props.onSend({
      content,
      busy_behavior: busyBehavior,
      ...(model ? { model_config_id: model } : {}),
      ...(effort && efforts.includes(effort) ? { reasoning_effort: effort } : {}),
    });
    if (!sent) {
      setText((now) => now || text);
      setFiles((now) => (now.length ? now : files));
    }
  };

  return (
    <form
      className="composer"
      aria-label="Send a message"
      onSubmit={(e) => {
        e.preventDefault();
        void send("queue");
      }}
    >
      <label htmlFor="message" className="visually-hidden">
        Message
      </label>
      <textarea
        id="message"
        placeholder="Message (Enter sends, Shift+Enter for a new line)"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            void send("queue");
          }
        }}
      />
      {files.length > 0 && (
        <ul className="attachments" aria-label="Attachments">
          {files.map((f) => (
            <li key={f.id}>
              📎 {f.name}{" "}
              <button
                type="button"
                className="link"
                aria-label={`Remove ${f.name}`}
                onClick={() => setFiles(files.filter((x) => x.id !== f.id))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-row">
        <label className="file-input">
          Attach
          <input
            type="file"
            multiple
            disabled={!account || uploading}
            onChange={async (e) => {
              const picked = [...(e.target.files ?? [])];
              e.target.value = "";
              if (!account) return;
              setUploading(true);
              try {
                for (const file of picked) {
                  const { id } = await client.uploadFile({
                    query: { organization: account.organizationId, name: file.name },
                    body: file,
                    contentType: file.type || "application/octet-stream",
                  });
                  setFiles((prev) => [...prev, { id, name: file.name }]);
                }
              } finally {
                setUploading(false);
              }
            }}
          />
        </label>
        <label>
          Model{" "}
          <select value={model} onChange={(e) => setModel(e.target.value)}>
            <option value="">{chosen && !model ? `${chosen.display_name} (current)` : "Default"}</option>
            {configs.map((c) => (
              <option key={c.id} value={c.id}>
                {c.display_name}
              </option>
            ))}
          </select>
        </label>
        {efforts.length > 0 && (
          <label>
            Reasoning{" "}
            <select value={effort} onChange={(e) => setEffort(e.target.value as Effort | "")}>
              <option value="">Default ({chosen?.options.reasoning_effort?.default})</option>
              {efforts.map((x) => (
                <option key={x} value={x}>
                  {x}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="spacer" />
        {props.busy ? (
          <>
            <button type="submit">Queue</button>
            <button type="button" onClick={() => void send("interrupt")}>
              Interrupt and send
            </button>
          </>
        ) : (
          <button type="submit">Send</button>
        )}
      </div>
    </form>
  );
}
