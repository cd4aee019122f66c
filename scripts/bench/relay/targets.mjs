// Protocol adapters: everything the driver knows about one relay's wire protocol. To point the
// bench at another service, add an entry here and run relay.mjs with --target NAME --url ORIGIN.
//
//   worker          folder (next to this file) with the wrangler.toml that relay.mjs starts;
//                   omit for a service that runs elsewhere (then --url is required)
//   prepare({ origin, room, fakeURL })
//                   optional: sets up a fresh chat before the clients connect (e.g. creates it
//                   over HTTP) and resolves to the id the other calls get as `room`
//   wsUrl(origin, room)      where one client (browser tab) of chat `room` connects
//   greeted(frame)           optional: true for the frame that shows the server finished setting
//                            up a connection; the driver waits for it on every client
//   trigger({ origin, room, sockets, turnId, prompt })
//                            starts one model turn whose last user message is `prompt` (the fake
//                            model's `/stamp <tokens> <delay-ms>`); `sockets` are the connected
//                            clients (ws), sockets[0] is the requester. May resolve late (the
//                            driver does not wait for it before timing).
//   parse(frame)             what one received text frame carries: { text, done, error }
//                            text: model output in it, if any (the driver reads the stamps
//                            [seq@µs] the fake model put in each token); done: the turn ended

export const targets = {
  // A bare Durable Object (baseline/worker.js): HTTP trigger, one JSON frame per text delta.
  baseline: {
    worker: "baseline",
    wsUrl: (origin, room) => `${ws(origin)}/room/${room}/ws`,
    trigger: ({ origin, room, prompt }) => fetch(`${origin}/room/${room}/turn`, { method: "POST", body: prompt }).then((r) => r.json()),
    parse(frame) {
      const m = JSON.parse(frame);
      return { text: m.type === "delta" ? m.delta : null, done: m.type === "done" };
    },
  },

  // bench:turn's bare turn (../turn-latency/bare/worker.js): a bare Durable Object that calls the
  // model through the AI SDK's streamText with chatd's provider and settings, one small JSON frame
  // per text delta. Against `baseline` it is what the AI SDK's stream pipeline costs; chatd against
  // it is chatd's own work beyond that.
  "bare-turn": {
    worker: "../turn-latency/bare",
    wsUrl: (origin, room) => `${ws(origin)}/bare/${room}/ws`,
    trigger: ({ origin, room, prompt }) =>
      fetch(`${origin}/bare/${room}/turn`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: [{ type: "text", text: prompt }] }),
      }).then((r) => r.json()),
    parse(frame) {
      const m = JSON.parse(frame);
      return { text: typeof m.text === "string" ? m.text : null, done: m.done === true, error: m.error };
    },
  },

  // Cloudflare's AIChatAgent (peer/worker.js), spoken to the way its useAgentChat client does:
  // the requester sends cf_agent_use_chat_request with the UI messages; every connection of the
  // agent gets cf_agent_use_chat_response frames whose `body` is one AI SDK UI-message chunk.
  peer: {
    worker: "peer",
    wsUrl: (origin, room) => `${ws(origin)}/agents/chat-agent/${room}`,
    greeted: (frame) => frame.includes('"cf_agent_identity"'),
    trigger({ sockets, turnId, prompt }) {
      const messages = [{ id: `user-${turnId}`, role: "user", parts: [{ type: "text", text: prompt }] }];
      sockets[0].send(
        JSON.stringify({
          type: "cf_agent_use_chat_request",
          id: turnId,
          init: { method: "POST", body: JSON.stringify({ messages, trigger: "submit-message" }) },
        }),
      );
    },
    parse(frame) {
      const m = JSON.parse(frame);
      if (m.type !== "cf_agent_use_chat_response") return { text: null, done: false }; // transcripts, identity, state
      return { text: m.error ? null : m.body, done: m.done === true, error: m.error ? m.body : undefined };
    },
  },

  // chatd-edge, spoken to as its docs/api.md says: a turn is POST /chats/{chat}/messages; every
  // tab gets the stream endpoint's frames (JSON arrays of events). Env: CHATD_TOKEN (a token of a
  // user who may create providers and model configs, e.g. the dev owner's). Browsers cannot set
  // headers on a WebSocket, so the token goes in the query string as a browser would send it.
  chatd: {
    async prepare({ origin, fakeURL }) {
      const token = process.env.CHATD_TOKEN;
      if (!token) throw new Error("chatd: set CHATD_TOKEN");
      const api = async (method, p, body) => {
        const r = await fetch(`${origin}/api/v2${p}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: body && JSON.stringify(body),
        });
        if (!r.ok) throw new Error(`chatd: ${method} ${p}: ${r.status} ${await r.text()}`);
        return r.status === 204 ? null : r.json();
      };
      if (!chatdModel.has(fakeURL)) {
        const me = await api("GET", "/users/me");
        const provider = await api("POST", "/chats/providers", {
          type: "openai-compatible",
          name: `bench-${Date.now()}`,
          base_url: fakeURL,
          api_key: "bench",
        });
        const config = await api("POST", `/organizations/${me.organization_ids[0]}/chats/model-configs`, {
          provider_id: provider.id,
          model: "bench",
          enabled: true,
        });
        chatdModel.set(fakeURL, config.id);
      }
      const chat = await api("POST", "/chats", { content: [], model_config_id: chatdModel.get(fakeURL) });
      return chat.id;
    },
    wsUrl: (origin, room) =>
      `${ws(origin)}/api/v2/chats/${room}/stream?coder_session_token=${encodeURIComponent(process.env.CHATD_TOKEN ?? "")}`,
    greeted: (frame) => frame.includes('"status"'),
    trigger: ({ origin, room, prompt }) =>
      fetch(`${origin}/api/v2/chats/${room}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${process.env.CHATD_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ content: [{ type: "text", text: prompt }] }),
      }).then((r) => r.json()),
    parse(frame) {
      const events = JSON.parse(frame);
      let text = null,
        done = false,
        error;
      for (const e of Array.isArray(events) ? events : [events]) {
        const part = e.type === "message_part" ? e.message_part?.part : null;
        const t = part?.text ?? part?.delta ?? part?.textDelta;
        if (typeof t === "string") text = (text ?? "") + t;
        if (e.type === "status" && e.status?.status === "waiting") done = true;
        if (e.type === "error") error = e.error?.message ?? "error";
      }
      return { text, done, error };
    },
  },
};

const chatdModel = new Map();
const ws = (origin) => origin.replace(/^http/, "ws");
