/**
 * The app: sign in (email and password, or an API token), then the chat list beside the open
 * chat. The open chat is in the URL (`/chats/{id}`), so a reload or a second tab shows the same
 * chat; a reload keeps a cookie session, and asks again for a pasted token (docs/accounts.md).
 */
import { useCallback, useEffect, useState } from "react";
import { type ChatdClient, ChatdError } from "../../client/src/index";
import { ChatList } from "./chat-list";
import { ChatView } from "./chat-view";
import { useAccount, useChatWatch } from "./hooks";
import { cookieClient, isSignedIn, signOut, tokenClient } from "./session";
import { Settings } from "./settings";

const SETTINGS_PATH = "/settings";

function chatIdFromPath(): string | null {
  return /^\/chats\/([0-9a-f-]{36})$/i.exec(location.pathname)?.[1] ?? null;
}

export function App() {
  // undefined: still asking whether the cookie signs this page in.
  const [client, setClient] = useState<ChatdClient | null | undefined>(undefined);
  useEffect(() => {
    const fromCookie = cookieClient();
    void isSignedIn(fromCookie).then((signedIn) =>
      setClient((current) => (current === undefined ? (signedIn ? fromCookie : null) : current)),
    );
  }, []);
  if (client === undefined) return null;
  if (client === null) return <SignIn onSignedIn={setClient} />;
  return (
    <Signed
      client={client}
      onSignOut={() => {
        void signOut(client).finally(() => setClient(null));
      }}
    />
  );
}

const describeError = (err: unknown) => (err instanceof ChatdError ? `${err.message} ${err.detail ?? ""}`.trim() : String(err));

function SignIn({ onSignedIn }: { onSignedIn: (client: ChatdClient) => void }) {
  const [sso, setSso] = useState(false);
  useEffect(() => {
    void cookieClient()
      .singleSignOnStatus()
      .then((status) => setSso(status.enabled))
      .catch(() => {});
  }, []);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const attempt = async (signIn: () => Promise<ChatdClient>) => {
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn());
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void attempt(async () => {
            const client = cookieClient();
            // The answer sets the HttpOnly session cookie; the page never sees the token.
            await client.login({ body: { email: email.trim(), password } });
            return client;
          });
        }}
      >
        <h1>chatd-edge</h1>
        <label htmlFor="email">Email</label>
        <input id="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {sso && (
          <a className="button" href="/api/v2/users/oidc/login">
            Sign in with single sign-on
          </a>
        )}
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void attempt(async () => {
            const client = tokenClient(token.trim());
            await client.me();
            return client;
          });
        }}
      >
        <p>
          Or use an API token (<code>npm run dev</code> prints one); this page keeps it until it is closed.
        </p>
        <label htmlFor="token">API token</label>
        <input id="token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
        <button type="submit" disabled={busy}>
          Use token
        </button>
      </form>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </main>
  );
}

function Signed({ client, onSignOut }: { client: ChatdClient; onSignOut: () => void }) {
  const account = useAccount(client);
  const watch = useChatWatch(client);
  const [chatId, setChatId] = useState(chatIdFromPath);
  const [settings, setSettings] = useState(() => location.pathname === SETTINGS_PATH);
  const [listVersion, setListVersion] = useState(0);
  useEffect(() => {
    const onPop = () => {
      setChatId(chatIdFromPath());
      setSettings(location.pathname === SETTINGS_PATH);
    };
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  const open = useCallback((id: string | null) => {
    history.pushState(null, "", id ? `/chats/${id}` : "/");
    setChatId(id);
    setSettings(false);
  }, []);
  const openSettings = useCallback(() => {
    history.pushState(null, "", SETTINGS_PATH);
    setChatId(null);
    setSettings(true);
  }, []);
  const refreshList = useCallback(() => setListVersion((v) => v + 1), []);
  return (
    <div className={`layout ${chatId || settings ? "has-chat" : ""}`}>
      <ChatList
        client={client}
        watch={watch}
        selected={chatId}
        onOpen={open}
        version={listVersion}
        onSignOut={onSignOut}
        onSettings={openSettings}
      />
      <main className="main">
        {settings ? (
          <Settings client={client} organizationId={account?.organizationId ?? null} />
        ) : chatId ? (
          <ChatView
            key={chatId}
            client={client}
            watch={watch}
            chatId={chatId}
            account={account}
            onChanged={refreshList}
            onBack={() => open(null)}
          />
        ) : (
          <div className="empty">
            <p>Pick a chat, or start a new one.</p>
          </div>
        )}
      </main>
    </div>
  );
}
