/** React bindings of the SDK: a chat's live state, a ticking clock, the caller's organization and models. */
import { useEffect, useReducer, useState } from "react";
import type { ChatdClient, ChatState, ChatStream, ChatWatch, ChatdError, ModelConfig } from "../../client/src/index";

export interface LiveChat {
  state: ChatState;
  stream: ChatStream;
  connected: boolean;
  fatal: ChatdError | null;
}

/** One stream per open chat, closed when the chat view goes away; re-renders on every frame. */
export function useChatStream(client: ChatdClient, chatId: string): LiveChat | null {
  const [stream, setStream] = useState<ChatStream | null>(null);
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    // A cookie session's socket carries the cookie; a pasted token goes in the query.
    const s = client.stream(chatId);
    const offs = [s.on("state", bump), s.on("open", bump), s.on("reconnecting", bump), s.on("fatal", bump)];
    setStream(s);
    return () => {
      for (const off of offs) off();
      s.close();
    };
  }, [client, chatId]);
  if (!stream || stream.chatId !== chatId) return null;
  return { state: stream.state, stream, connected: stream.connected, fatal: stream.error };
}

/**
 * The signed-in user's chat list watch (`/chats/watch`), one per client for the whole app: the
 * list and the open chat's header follow its events. It reconnects by itself; a consumer reads
 * what it shows again on each `open`.
 */
export function useChatWatch(client: ChatdClient): ChatWatch | null {
  const [watch, setWatch] = useState<ChatWatch | null>(null);
  useEffect(() => {
    const w = client.watchChats();
    setWatch(w);
    return () => w.close();
  }, [client]);
  return watch;
}

/** The current time, refreshed every `ms` (countdowns). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export interface Account {
  organizationId: string;
  configs: ModelConfig[];
}

/** The caller's first organization and the model configs its members may pick from. */
export function useAccount(client: ChatdClient): Account | null {
  const [account, setAccount] = useState<Account | null>(null);
  useEffect(() => {
    let live = true;
    void (async () => {
      const me = await client.me();
      const organizationId = me.organization_ids[0];
      if (!organizationId) return;
      const models = await client.listModels({ organization: organizationId });
      if (live) setAccount({ organizationId, configs: models.models.filter((c) => c.enabled) });
    })().catch(() => {});
    return () => {
      live = false;
    };
  }, [client]);
  return account;
}
