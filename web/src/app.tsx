/**
 * The app: sign in with a token, then the chat list beside the open chat. The open chat is in
 * the URL (`/chats/{id}`), so a reload or a second tab shows the same chat.
 */
import { useCallback, useEffect, useMemo, useState } from "react";
import { ChatdError } from "../../client/src/index";
import { ChatList } from "./chat-list";
import { ChatView } from "./chat-view";
import { useAccount } from "./hooks";
import { clientFor, forgetToken, storedToken, storeToken } from "./session";

function chatIdFromPath(): string | null {
  return /^\/chats\/([0-9a-f-]{36})$/i.exec(location.pathname)?.[1] ?? null;
}

export function App() {
  const [token, setToken] = useState(storedToken);
  if (!token) return <SignIn onSignedIn={setToken} />;
  return (
    <Signed
      token={token}
      onSignOut={() => {
        forgetToken();
        setToken(null);
      }}
    />
  );
}

function SignIn({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main className="signin">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            await clientFor(value.trim()).me();
            storeToken(value.trim());
            onSignedIn(value.trim());
          } catch (err) {
            setError(err instanceof ChatdError ? `${err.message} ${err.detail ?? ""}` : String(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>chatd-edge</h1>
        <p>Sign in with an API token (`npm run dev` prints one).</p>
        <label htmlFor="token">API token</label>
        <input id="token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

function Signed({ token, onSignOut }: { token: string; onSignOut: () => void }) {
  const client = useMemo(() => clientFor(token), [token]);
  const account = useAccount(client);
  const [chatId, setChatId] = useState(chatIdFromPath);
  const [listVersion, setListVersion] = useState(0);
  useEffect(() => {
    const onPop = () => setChatId(chatIdFromPath());
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  const open = useCallback((id: string | null) => {
    history.pushState(null, "", id ? `/chats/${id}` : "/");
    setChatId(id);
  }, []);
  const refreshList = useCallback(() => setListVersion((v) => v + 1), []);
  return (
    <div className={`layout ${chatId ? "has-chat" : ""}`}>
      <ChatList client={client} selected={chatId} onOpen={open} version={listVersion} onSignOut={onSignOut} />
      <main className="main">
        {chatId ? (
          <ChatView key={chatId} client={client} chatId={chatId} account={account} onChanged={refreshList} onBack={() => open(null)} />
        ) : (
          <div className="empty">
            <p>Pick a chat, or start a new one.</p>
          </div>
        )}
      </main>
    </div>
  );
}
