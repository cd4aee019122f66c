/**
 * The SDK (client/) against a real `wrangler dev` with the chat worker and the fake model:
 * typed calls, the typed error, the live stream and its derived state, reconnecting and resuming
 * after the network drops the socket, terminal closes, and the Node example.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { WebSocketServer } from "ws";
import { ChatdError, type ChatStreamEvent, text } from "../../client/src/index";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { newGate, openGate } from "../support/fake-model-gate";
import { nodeSockets, sdk, textOf } from "./support";
import { streamClosingEvent } from "../../src/wire/stream-events";

const proxies: TcpProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

describe("ChatdClient", () => {
  it("creates a chat, sends, and streams the answer into the derived state", async () => {
    const client = sdk();
    const chat = await client.createChat({ body: { content: [] } });
    expect(chat.status).toBe("waiting");
    const stream = client.stream(chat.id, { webSocket: nodeSockets });
    // Titles and summaries come through the chat list watch, not the stream (docs/api.md).
    const watch = client.watchChats({ webSocket: nodeSockets });
    const watching = new Promise<void>((resolve) => watch.on("open", resolve));
    const previews: string[] = [];
    stream.on("state", (s) => s.preview && previews.push(s.preview.text));
    try {
      await stream.until((s) => s.status === "waiting");
      await watching;
      // Matched on the chat, not the kind: the watch's first event about this chat (opened after it
      // was made) is `created` or `status_change`, whatever else changed with it.
      const titled = watch.next((e) => e.chat.id === chat.id && e.chat.title_source === "generated");
      const summarized = watch.next((e) => e.chat.id === chat.id && e.chat.last_turn_summary !== null);
      // The answer holds after its first token until the test has seen it growing: under load the
      // relay may gather a short answer's parts into one frame.
      const gate = newGate("sdk-preview");
      const sent = await client.sendMessage({ chat: chat.id, body: { content: [text(`/gate ${gate} 20 one two three four five`)] } });
      expect(sent.queued).toBe(false);
      await stream.until((s) => (s.preview?.text.length ?? 0) > 0);
      await openGate(gate);
      const done = await stream.until((s) => s.status === "waiting" && s.messages.some((m) => m.role === "assistant"));
      expect(textOf(done.messages.findLast((m) => m.role === "assistant"))).toBe("one two three four five");
      expect(done.preview).toBeNull();
      // The answer was seen growing before it was committed.
      expect(previews.some((p) => p.length > 0 && p.length < "one two three four five".length)).toBe(true);
      // The title its first message started reaches the watch (the fake model echoes the title
      // call's prompt: the first message, directive applied).
      expect((await titled).chat.title).toBe("one two three four five");
      // So do the summary and status label written after the turn (the fake model quotes the prompt).
      expect((await summarized).chat.last_turn_summary).toBe(`Replied to: /gate ${gate} 20 one two three four five`);
      const history = await client.listMessages({ chat: chat.id });
      expect(history.messages.map((m) => m.id)).toEqual(done.messages.map((m) => m.id));
    } finally {
      stream.close();
      watch.close();
    }
  });

  it("answers refusals with one typed error carrying code, message and validations", async () => {
    const client = sdk();
    const chat = await client.createChat({ body: { content: [] } });
    const err = await client.sendMessage({ chat: chat.id, body: { content: [] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChatdError);
    const e = err as ChatdError;
    expect([e.status, e.code]).toEqual([400, "validation_failed"]);
    expect(e.message).toBeTruthy();
    expect(e.validations[0]?.field).toBe("content");
    const missing = await client.getChat({ chat: crypto.randomUUID() }).catch((x: unknown) => x);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
    const unauthorized = await sdk(undefined, "not-a-token")
      .me()
      .catch((x: unknown) => x);
    expect(unauthorized).toMatchObject({ status: 401 });
  });

  it("reconnects after the network drops the socket mid-answer and resumes from its cursors, without refetching", async () => {
    const proxy = await startTcpProxy(inject("clientBaseUrl"));
    proxies.push(proxy);
    const client = sdk(proxy.url);
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    const chat = await client.createChat({ body: { content: [] } });
    const stream = client.stream(chat.id, { webSocket: nodeSockets, backoff: { initialMs: 50, maxMs: 500 } });
    const afterDrop: ChatStreamEvent[] = [];
    let dropped = false;
    stream.on("event", (e) => dropped && afterDrop.push(e));
    try {
      await stream.until((s) => s.status === "waiting");
      const sent = await client.sendMessage({ chat: chat.id, body: { content: [text(`/slow 150 ${words}`)] } });
      const userId = sent.message!.id;
      const before = await stream.until((s) => (s.preview?.lastSeq ?? 0) >= 4);
      const seqBefore = before.preview!.lastSeq;
      dropped = true;
      proxy.dropAll();
      const done = await stream.until((s) => s.status === "waiting" && s.messages.some((m) => m.role === "assistant"));
      expect(stream.connections).toBeGreaterThanOrEqual(2);
      expect(textOf(done.messages.findLast((m) => m.role === "assistant"))).toBe(words);
      // Resumed, not re-bootstrapped: the user message it held was not sent again...
      expect(afterDrop.filter((e) => e.type === "message" && e.message.id === userId)).toEqual([]);
      // ...and the episode's parts went on after the last one it held (unless the step had ended meanwhile).
      const parts = afterDrop.flatMap((e) => (e.type === "message_part" ? [e.message_part.seq] : []));
      if (parts.length > 0 && !afterDrop.some((e) => e.type === "preview_reset")) expect(Math.min(...parts)).toBeGreaterThan(seqBefore);
      expect(afterDrop.some((e) => e.type === "message_part" || e.type === "message")).toBe(true);
    } finally {
      stream.close();
    }
  });

  it("follows one episode's raw parts over /stream/parts, across a dropped connection, each seq once and in order", async () => {
    const proxy = await startTcpProxy(inject("clientBaseUrl"));
    proxies.push(proxy);
    const client = sdk();
    const words = Array.from({ length: 30 }, (_, i) => `p${i}`).join(" ");
    const chat = await client.createChat({ body: { content: [] } });
    const stream = client.stream(chat.id, { webSocket: nodeSockets });
    const parts = sdk(proxy.url).partsStream(chat.id, { webSocket: nodeSockets, backoff: { initialMs: 50, maxMs: 500 } });
    const seqs: number[] = [];
    let received = "";
    parts.onPart((p) => {
      seqs.push(p.seq);
      if (p.part.type === "text") received += p.part.text;
    });
    try {
      await stream.until((s) => s.status === "waiting");
      await client.sendMessage({ chat: chat.id, body: { content: [text(`/slow 150 ${words}`)] } });
      const episode = (await stream.until((s) => s.preview !== null)).preview!;
      parts.select(episode.historyVersion, episode.generationAttempt);
      await expect.poll(() => seqs.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
      proxy.dropAll();
      const done = await stream.until((s) => s.status === "waiting" && s.messages.some((m) => m.role === "assistant"));
      expect(parts.connections).toBeGreaterThanOrEqual(2);
      await expect.poll(() => received, { timeout: 10_000 }).toBe(textOf(done.messages.findLast((m) => m.role === "assistant")));
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    } finally {
      parts.close();
      stream.close();
    }
  });

  it("stops with an error instead of looping when the chat is not there or the token is refused", async () => {
    const missing = sdk().stream(crypto.randomUUID(), { webSocket: nodeSockets, backoff: { initialMs: 10, maxMs: 20 } });
    await expect(missing.until(() => false)).rejects.toMatchObject({ status: 404, code: "not_found" });
    expect(missing.connections).toBe(1);
    const chat = await sdk().createChat({ body: { content: [] } });
    const refused = sdk(undefined, "bad-token").stream(chat.id, { webSocket: nodeSockets, backoff: { initialMs: 10, maxMs: 20 } });
    await expect(refused.until(() => false)).rejects.toMatchObject({ status: 401 });
    // Stopped for good: the stream holds its error, and a stopped stream never connects again.
    expect(refused.error).toMatchObject({ status: 401 });
    expect(refused.connections).toBe(1);
  });

  it("stops on close 4404 (chat gone) with the server's reason, without reconnecting", async () => {
    // No route deletes a chat, so this end of the protocol comes from a server that speaks only it:
    // the closing error event in an array frame, then the close, exactly as src/stream/stream-loop.ts
    // ends a stream.
    const chatId = crypto.randomUUID();
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    server.on("connection", (ws) => {
      ws.send(JSON.stringify([streamClosingEvent(chatId, "not_found", "The chat no longer exists.")]));
      ws.close(4404, "chat not found");
    });
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const stream = sdk(`http://127.0.0.1:${port}`).stream(chatId, {
        webSocket: nodeSockets,
        backoff: { initialMs: 10, maxMs: 20 },
      });
      const err = await stream.until(() => false).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 404, code: "not_found", message: "The chat no longer exists.", detail: "close 4404" });
      expect(stream.error).toMatchObject({ status: 404 });
      // The closing event says why the stream ends; it is not the chat's own error.
      expect(stream.state.error).toBeNull();
      expect(stream.connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it("stops on close 4401 (the credential lapsed) with the server's reason, for the stream and the parts socket alike", async () => {
    // As the object closes a socket whose key was revoked (durable-objects/chat-object/socket-credentials.ts).
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    server.on("connection", (ws) => ws.close(4401, "the token or session was revoked"));
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const client = sdk(`http://127.0.0.1:${port}`);
      const options = { webSocket: nodeSockets, backoff: { initialMs: 10, maxMs: 20 } };
      const stream = client.stream(crypto.randomUUID(), options);
      const err = await stream.until(() => false).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 401, code: "unauthorized", message: "the token or session was revoked", detail: "close 4401" });
      expect(stream.connections).toBe(1);
      const parts = client.partsStream(crypto.randomUUID(), options);
      const partsError = await new Promise((resolve) => parts.onFatal(resolve));
      expect(partsError).toMatchObject({ status: 401, detail: "close 4401" });
      expect(parts.connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it("runs the Node example: creates a chat, sends, prints the streamed answer", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "client/examples/chat.ts", "hello example"],
      {
        env: { ...process.env, CHATD_URL: inject("clientBaseUrl"), CHATD_TOKEN: inject("clientToken") },
        timeout: 60_000,
      },
    );
    expect(stdout.trim()).toBe("hello example");
  });
});
