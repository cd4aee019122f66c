/**
 * The caller's chats: titles with the last turn's status label under them, status badges, the
 * archived filter, a new chat button. Live: read once, then kept by the chat list watch's events,
 * and read again whenever the watch (re)connects, since events sent while it was away are not replayed.
 */
import { useEffect, useState } from "react";
import { applyWatchEvent, type Chat, type ChatdClient, type ChatWatch } from "../../client/src/index";
import { UserCost } from "./cost";

export function ChatList(props: {
  client: ChatdClient;
  watch: ChatWatch | null;
  selected: string | null;
  onOpen: (id: string) => void;
  version: number;
  onSignOut: () => void;
  onSettings: () => void;
}) {
  const { client, watch, selected, onOpen, version } = props;
  const [archived, setArchived] = useState(false);
  const [chats, setChats] = useState<Chat[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new `version` (an action here) reloads at once
  useEffect(() => {
    let live = true;
    const load = () =>
      client
        .listChats({ query: { archived: archived ? "true" : "false", limit: 200 } })
        .then((list) => {
          if (!live) return;
          setChats(list);
          setError(null);
        })
        .catch((err: Error) => live && setError(err.message));
    void load();
    const offs = watch
      ? [
          watch.on("open", () => void load()),
          watch.on("event", (event) => live && setChats((list) => (list === null ? list : applyWatchEvent(list, event, { archived })))),
        ]
      : [];
    return () => {
      live = false;
      for (const off of offs) off();
    };
  }, [client, watch, archived, version]);

  // Children under their parent (subagents): roots first, each followed by its children.
  const roots = (chats ?? []).filter((c) => !c.parent_chat_id || !chats?.some((p) => p.id === c.parent_chat_id));
  const childrenOf = (id: string) => (chats ?? []).filter((c) => c.parent_chat_id === id);
  const item = (chat: Chat, depth: number) => (
    <li key={chat.id} style={{ paddingLeft: `${depth}rem` }}>
      <a
        href={`/chats/${chat.id}`}
        aria-current={chat.id === selected ? "page" : undefined}
        onClick={(e) => {
          e.preventDefault();
          onOpen(chat.id);
        }}
      >
        <span className="chat-item-text">
          <span className={chat.has_unread && chat.id !== selected ? "title unread" : "title"}>{chat.title || "Untitled"}</span>
          <ChatSubtitle chat={chat} />
        </span>
        <StatusBadge status={chat.status} />
      </a>
      {childrenOf(chat.id).length > 0 && <ul>{childrenOf(chat.id).map((c) => item(c, depth + 1))}</ul>}
    </li>
  );

  return (
    <nav className="sidebar" aria-label="Chats">
      <div className="sidebar-head">
        <button
          type="button"
          onClick={async () => {
            // "ui": this chat is the browser app's (Coder's client_type).
            const chat = await client.createChat({ body: { content: [], client_type: "ui" } });
            onOpen(chat.id);
          }}
        >
          New chat
        </button>
        <label className="inline">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> Archived
        </label>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <ul className="chat-list">{roots.map((c) => item(c, 0))}</ul>
      {chats?.length === 0 && <p className="muted">{archived ? "No archived chats." : "No chats yet."}</p>}
      <UserCost client={client} version={version} />
      <button type="button" className="link" onClick={props.onSettings}>
        Settings
      </button>
      <button type="button" className="link" onClick={props.onSignOut}>
        Sign out
      </button>
    </nav>
  );
}

/**
 * Under the title: the chat's error when it has one, else what its last turn did (the status
 * label, `last_turn_summary`); the summary of the whole chat is the line's tooltip.
 */
function ChatSubtitle({ chat }: { chat: Chat }) {
  const text = chat.status === "error" && chat.last_error ? chat.last_error.message : chat.last_turn_summary?.trim();
  if (!text) return null;
  return (
    <span className={chat.status === "error" ? "subtitle subtitle-error" : "subtitle"} title={chat.summary ?? undefined}>
      {text}
    </span>
  );
}

export function StatusBadge({ status }: { status: string | null }) {
  if (!status) return null;
  return <span className={`badge badge-${status}`}>{status.replace("_", " ")}</span>;
}
