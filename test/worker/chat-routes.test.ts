/**
 * Every chat route: the happy path with docs/api.md's response fields, malformed input (400 with
 * validations), no token (401), and another user's token (404, nothing written). The landing
 * states of every endpoint from every state are in test/e2e/endpoint-transitions.test.ts.
 */
import { describe, expect, it } from "vitest";
import { api, createTestUser, expectJson, type TestUser, withDb } from "./support/accounts";

const text = (t: string) => [{ type: "text", text: t }];

interface Chat {
  id: string;
  status: string;
  title: string;
  title_source: string;
  archived: boolean;
  labels: Record<string, string>;
  pin_order: number;
  snapshot_version: number;
}
interface Message {
  id: number;
  role: string;
  content: { type: string; text?: string }[];
  queued_message_id: number | null;
}
interface Queued {
  id: number;
  position: number;
}

async function newChat(user: TestUser, body: Record<string, unknown> = { content: text("hello") }): Promise<Chat> {
  return expectJson<Chat>(await api("/chats", { token: user.token, body }), 201);
}

/** Everything a chat's rows hold, to prove a refused request wrote nothing. */
async function rowsOf(chatId: string): Promise<string> {
  return withDb(async (db) => {
    const { rows } = await db.$client.query(
      `SELECT jsonb_build_object('chat', (SELECT to_jsonb(c) FROM chats c WHERE c.id = $1),
         'messages', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]') FROM chat_messages m WHERE m.chat_id = $1),
         'queue', (SELECT coalesce(jsonb_agg(to_jsonb(q) ORDER BY q.position), '[]') FROM chat_queued_messages q WHERE q.chat_id = $1))::text AS s`,
      [chatId],
    );
    return rows[0].s as string;
  });
}

describe("POST /chats", () => {
  it("creates a running chat with the first message and a fallback title", async () => {
    const u = await createTestUser();
    const chat = await newChat(u, { content: text("plan the  trip"), labels: { project: "x" } });
    expect(chat).toMatchObject({
      status: "running",
      title: "plan the trip",
      title_source: "fallback",
      labels: { project: "x" },
      snapshot_version: 1,
    });
    const read = await expectJson<{ messages: Message[] }>(await api(`/chats/${chat.id}/messages`, { token: u.token }), 200);
    expect(read.messages.map((m) => [m.role, m.content[0]?.text])).toEqual([["user", "plan the  trip"]]);
  });

  it("creates an idle chat titled New Chat from empty content", async () => {
    const u = await createTestUser();
    expect(await newChat(u, { content: [] })).toMatchObject({ status: "waiting", title: "New Chat", title_source: "fallback" });
  });

  it("takes a caller's title as a user title", async () => {
    const u = await createTestUser();
    expect(await newChat(u, { content: text("x"), title: "Trip" })).toMatchObject({ title: "Trip", title_source: "user" });
  });

  it("rejects malformed bodies with validations", async () => {
    const u = await createTestUser();
    const bad = await expectJson<{ code: string; validations: { field: string }[] }>(
      await api("/chats", { token: u.token, body: { content: [{ type: "image", url: "x" }], reasoning_effort: "extreme" } }),
      400,
    );
    expect(bad.code).toBe("validation_failed");
    expect(
      bad.validations.map((v) => v.field),
      JSON.stringify(bad.validations),
    ).toEqual(expect.arrayContaining(["content.0.type", "reasoning_effort"]));
    expect((await api("/chats", { token: u.token, body: "{not json" })).status).toBe(400);
  });

  it("refuses a model config of another organization", async () => {
    const u = await createTestUser();
    const res = await api("/chats", { token: u.token, body: { content: text("x"), model_config_id: crypto.randomUUID() } });
    const body = await expectJson<{ validations: { field: string }[] }>(res, 400);
    expect(body.validations[0]?.field).toBe("model_config_id");
  });

  it("refuses an organization the caller does not belong to with 404", async () => {
    const u = await createTestUser();
    const other = await createTestUser();
    expect((await api("/chats", { token: u.token, body: { content: [], organization_id: other.organizationId } })).status).toBe(404);
  });
});

describe("reading chats", () => {
  it("lists the caller's chats newest first, filtered by archived and label", async () => {
    const u = await createTestUser();
    const a = await newChat(u, { content: [], labels: { team: "a" } });
    const b = await newChat(u, { content: [], labels: { team: "b" } });
    const all = await expectJson<Chat[]>(await api("/chats", { token: u.token }), 200);
    expect(all.map((c) => c.id)).toEqual([b.id, a.id]);
    const labelled = await expectJson<Chat[]>(await api("/chats?label=team:a", { token: u.token }), 200);
    expect(labelled.map((c) => c.id)).toEqual([a.id]);
    const archived = await expectJson<Chat[]>(await api("/chats?archived=true", { token: u.token }), 200);
    expect(archived).toEqual([]);
    const page = await expectJson<Chat[]>(await api(`/chats?limit=1&after_id=${b.id}`, { token: u.token }), 200);
    expect(page.map((c) => c.id)).toEqual([a.id]);
  });

  it("hides another user's chat behind 404 on every read", async () => {
    const u = await createTestUser();
    const other = await createTestUser();
    const chat = await newChat(u);
    for (const path of [`/chats/${chat.id}`, `/chats/${chat.id}/messages`]) {
      expect((await api(path, { token: other.token })).status).toBe(404);
    }
    expect((await api("/chats", { token: other.token })).status).toBe(200);
  });
});

describe("mutations by another user answer 404 and write nothing", () => {
  it("on every mutating route", async () => {
    const u = await createTestUser();
    const other = await createTestUser();
    const chat = await newChat(u);
    const sent = await expectJson<{ queued_message: Queued }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("q") } }),
      200,
    );
    const read = await expectJson<{ messages: Message[] }>(await api(`/chats/${chat.id}/messages`, { token: u.token }), 200);
    const before = await rowsOf(chat.id);
    const attempts: [string, string, unknown?][] = [
      ["POST", `/chats/${chat.id}/messages`, { content: text("x") }],
      ["PATCH", `/chats/${chat.id}/messages/${read.messages[0]?.id}`, { content: text("x") }],
      ["PATCH", `/chats/${chat.id}`, { archived: true, title: "stolen" }],
      ["DELETE", `/chats/${chat.id}/queue/${sent.queued_message.id}`],
      ["POST", `/chats/${chat.id}/queue/${sent.queued_message.id}/promote`],
      ["POST", `/chats/${chat.id}/interrupt`],
      ["POST", `/chats/${chat.id}/tool-results`, { results: [{ tool_call_id: "c", output: 1 }] }],
      ["POST", `/chats/${chat.id}/compact`],
      ["POST", `/chats/${chat.id}/clear`],
      ["POST", `/chats/${chat.id}/reconcile-invalid`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await api(path, { method, token: other.token, ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe("not_found");
    }
    expect(await rowsOf(chat.id)).toBe(before);
  });

  it("and without a token every route answers 401", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    for (const [method, path] of [
      ["GET", "/chats"],
      ["POST", "/chats"],
      ["GET", `/chats/${chat.id}`],
      ["GET", `/chats/${chat.id}/messages`],
      ["POST", `/chats/${chat.id}/messages`],
      ["POST", `/chats/${chat.id}/interrupt`],
      ["DELETE", `/chats/${chat.id}/queue/1`],
    ] as const) {
      const res = await api(path, { method, ...(method === "GET" || method === "DELETE" ? {} : { body: { content: [] } }) });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });
});

describe("POST /chats/{chat}/messages", () => {
  it("queues on a running chat and returns the queued message", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const res = await expectJson<{ queued: boolean; queued_message: Queued; messages: Message[]; warnings: string[] }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("next") } }),
      200,
    );
    expect(res).toMatchObject({ queued: true, messages: [], warnings: [] });
    expect(res.queued_message.position).toBe(0);
  });

  it("with busy_behavior interrupt on an unowned running chat promotes m itself at once", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const res = await expectJson<{ queued: boolean; message: Message; queued_message?: Queued }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("now"), busy_behavior: "interrupt" } }),
      200,
    );
    expect(res.queued).toBe(false);
    expect(res.queued_message).toBeUndefined();
    expect(res.message.content[0]?.text).toBe("now");
    expect(res.message.queued_message_id).not.toBeNull();
  });

  it("rejects empty content and unknown busy_behavior with 400 and writes nothing", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const before = await rowsOf(chat.id);
    for (const body of [{ content: [] }, { content: text("x"), busy_behavior: "shout" }, { content: [{ type: "text", text: "" }] }]) {
      const res = await expectJson<{ code: string }>(await api(`/chats/${chat.id}/messages`, { token: u.token, body }), 400);
      expect(res.code).toBe("validation_failed");
    }
    expect(await rowsOf(chat.id)).toBe(before);
  });

  it("takes a file reference as Coder's clients send one, and refuses a malformed one writing nothing", async () => {
    const u = await createTestUser();
    const chat = await newChat(u, { content: [] });
    const before = await rowsOf(chat.id);
    const reference = { type: "file-reference", file_name: "main.go", start_line: 10, end_line: 15, content: "func broken() {}" };
    for (const part of [
      { ...reference, file_name: "" },
      { ...reference, start_line: 16 },
      { ...reference, start_line: -1 },
      { ...reference, start_line: 1.5 },
      { ...reference, content: 7 },
    ]) {
      const res = await expectJson<{ code: string }>(
        await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: [part] } }),
        400,
      );
      expect(res.code, JSON.stringify(part)).toBe("validation_failed");
    }
    expect(await rowsOf(chat.id)).toBe(before);

    // Go's client leaves zero and empty fields out (a one-line reference to line 0 with no content),
    // and sends a zero file_id with a text part.
    const goText = { type: "text", text: "why?", file_id: "00000000-0000-0000-0000-000000000000" };
    const sent = await expectJson<{ message: Message }>(
      await api(`/chats/${chat.id}/messages`, {
        token: u.token,
        body: { content: [reference, { type: "file-reference", file_name: "empty.txt" }, goText] },
      }),
      200,
    );
    const stored = [
      reference,
      { type: "file-reference", file_name: "empty.txt", start_line: 0, end_line: 0, content: "" },
      ...text("why?"),
    ];
    expect(sent.message.content).toEqual(stored);
    const read = await expectJson<{ messages: Message[] }>(await api(`/chats/${chat.id}/messages`, { token: u.token }), 200);
    expect(read.messages.find((m) => m.role === "user")?.content).toEqual(stored);
  });

  it("answers 429 queue_full beyond the queue cap and writes nothing", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    for (let i = 0; i < 20; i++)
      await expectJson(await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text(`q${i}`) } }), 200);
    const before = await rowsOf(chat.id);
    const full = await expectJson<{ code: string }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("one more") } }),
      429,
    );
    expect(full.code).toBe("queue_full");
    expect(await rowsOf(chat.id)).toBe(before);
  });

  it("answers 413 for a body over the limit", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const res = await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("x".repeat(2 * 1024 * 1024)) } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe("payload_too_large");
  });
});

describe("PATCH /chats/{chat}/messages/{message}", () => {
  it("soft-deletes the suffix, inserts the replacement and clears the queue", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    await expectJson(await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("queued") } }), 200);
    const before = await expectJson<{ messages: Message[] }>(await api(`/chats/${chat.id}/messages`, { token: u.token }), 200);
    const first = before.messages[0]!;
    const edited = await expectJson<{ message: Message; deleted_message_ids: number[]; warnings: string[] }>(
      await api(`/chats/${chat.id}/messages/${first.id}`, { method: "PATCH", token: u.token, body: { content: text("better") } }),
      200,
    );
    expect(edited.message.content[0]?.text).toBe("better");
    expect(edited.deleted_message_ids).toContain(first.id);
    const after = await expectJson<{ messages: Message[]; queued_messages: Queued[] }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token }),
      200,
    );
    expect(after.messages.map((m) => m.content[0]?.text)).toEqual(["better"]);
    expect(after.queued_messages).toEqual([]);
  });

  it("answers 404 for a message that is not in the chat, 400 for an id that is not a positive integer", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const edit = (id: string | number) =>
      api(`/chats/${chat.id}/messages/${id}`, { method: "PATCH", token: u.token, body: { content: text("x") } });
    expect((await edit(Number.MAX_SAFE_INTEGER)).status).toBe(404);
    for (const bad of [crypto.randomUUID(), "1.5", "-1", "0", "1e3"]) {
      const res = await expectJson<{ code: string; validations: { field: string }[] }>(await edit(bad), 400);
      expect([res.code, res.validations.map((v) => v.field)], bad).toEqual(["validation_failed", ["message"]]);
    }
  });
});

describe("the queue", () => {
  it("promotes a queued message on an errored-free running chat by moving it to the head and interrupting", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const q1 = await expectJson<{ queued_message: Queued }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("a") } }),
      200,
    );
    const q2 = await expectJson<{ queued_message: Queued }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("b") } }),
      200,
    );
    const promoted = await expectJson<{ queued_messages: Queued[]; messages: Message[] }>(
      await api(`/chats/${chat.id}/queue/${q2.queued_message.id}/promote`, { method: "POST", token: u.token }),
      200,
    );
    expect(promoted.queued_messages.map((q) => q.id)).toEqual([q2.queued_message.id, q1.queued_message.id]);
    const state = await expectJson<Chat>(await api(`/chats/${chat.id}`, { token: u.token }), 200);
    expect(state.status).toBe("interrupting");
  });

  it("deletes a queued message with 204 and answers 404 for an unknown one", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const q = await expectJson<{ queued_message: Queued }>(
      await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("a") } }),
      200,
    );
    await expectJson(await api(`/chats/${chat.id}/queue/${Number.MAX_SAFE_INTEGER}`, { method: "DELETE", token: u.token }), 404);
    const bad = await expectJson<{ code: string }>(
      await api(`/chats/${chat.id}/queue/not-a-number`, { method: "DELETE", token: u.token }),
      400,
    );
    expect(bad.code).toBe("validation_failed");
    expect((await api(`/chats/${chat.id}/queue/${q.queued_message.id}`, { method: "DELETE", token: u.token })).status).toBe(204);
    const after = await expectJson<{ queued_messages: Queued[] }>(await api(`/chats/${chat.id}/messages`, { token: u.token }), 200);
    expect(after.queued_messages).toEqual([]);
  });

  it("rejects a malformed queue id with 400", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    expect((await api(`/chats/${chat.id}/queue/not-a-uuid`, { method: "DELETE", token: u.token })).status).toBe(400);
  });
});

describe("PATCH /chats/{chat}", () => {
  it("writes title, labels and pin order without a transition", async () => {
    const u = await createTestUser();
    const chat = await newChat(u, { content: [] });
    const answer = await api(`/chats/${chat.id}`, {
      method: "PATCH",
      token: u.token,
      body: { title: "Mine", labels: { a: "1" }, pin_order: 3 },
    });
    // 204 with no body, as Coder's Go client requires; the change is read back.
    expect(answer.status).toBe(204);
    expect(await answer.text()).toBe("");
    const patched = await expectJson<Chat>(await api(`/chats/${chat.id}`, { token: u.token }), 200);
    expect(patched).toMatchObject({
      title: "Mine",
      title_source: "user",
      labels: { a: "1" },
      pin_order: 3,
      snapshot_version: chat.snapshot_version,
    });
  });

  it("archives and unarchives an idle chat", async () => {
    const u = await createTestUser();
    const chat = await newChat(u, { content: [] });
    await expectJson(await api(`/chats/${chat.id}`, { method: "PATCH", token: u.token, body: { archived: true } }), 204);
    expect(await expectJson<Chat>(await api(`/chats/${chat.id}`, { token: u.token }), 200)).toMatchObject({ archived: true });
    await expectJson(await api(`/chats/${chat.id}`, { method: "PATCH", token: u.token, body: { archived: false } }), 204);
    expect(await expectJson<Chat>(await api(`/chats/${chat.id}`, { token: u.token }), 200)).toMatchObject({ archived: false });
  });

  it("refuses to archive a running chat, naming the transition and state, and writes nothing", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    const before = await rowsOf(chat.id);
    const res = await expectJson<{ code: string; detail: string }>(
      await api(`/chats/${chat.id}`, { method: "PATCH", token: u.token, body: { archived: true, title: "t" } }),
      409,
    );
    expect(res).toMatchObject({ code: "transition_not_allowed", detail: "SetArchived is not allowed from R0" });
    expect(await rowsOf(chat.id)).toBe(before);
  });
});

describe("interrupt, tool-results, compact, clear, reconcile", () => {
  it("interrupting an unowned running chat finishes at once in waiting", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    expect(await expectJson<Chat>(await api(`/chats/${chat.id}/interrupt`, { method: "POST", token: u.token }), 200)).toMatchObject({
      status: "waiting",
    });
  });

  it("compact and clear refuse a chat with nothing to compact or clear", async () => {
    const u = await createTestUser();
    const chat = await newChat(u, { content: [] });
    expect(
      ((await expectJson(await api(`/chats/${chat.id}/compact`, { method: "POST", token: u.token }), 409)) as { code: string }).code,
    ).toBe("nothing_to_compact");
    expect(
      ((await expectJson(await api(`/chats/${chat.id}/clear`, { method: "POST", token: u.token }), 409)) as { code: string }).code,
    ).toBe("nothing_to_clear");
  });

  it("clear commits the boundary on a waiting chat with history", async () => {
    const u = await createTestUser();
    const chat = await newChat(u, { content: [] });
    await expectJson(await api(`/chats/${chat.id}/messages`, { token: u.token, body: { content: text("hi") } }), 200);
    await expectJson(await api(`/chats/${chat.id}/interrupt`, { method: "POST", token: u.token }), 200);
    const cleared = await expectJson<Chat>(await api(`/chats/${chat.id}/clear`, { method: "POST", token: u.token }), 200);
    expect(cleared.status).toBe("waiting");
    const read = await expectJson<{ messages: Message[] }>(await api(`/chats/${chat.id}/messages`, { token: u.token }), 200);
    expect(read.messages.some((m) => m.content.some((p) => (p as { tool_name?: string }).tool_name === "chat_cleared"))).toBe(true);
  });

  it("tool-results without a pending action answers 409; malformed results 400", async () => {
    const u = await createTestUser();
    const chat = await newChat(u);
    expect(
      (await api(`/chats/${chat.id}/tool-results`, { token: u.token, body: { results: [{ tool_call_id: "c", output: 1 }] } })).status,
    ).toBe(409);
    expect((await api(`/chats/${chat.id}/tool-results`, { token: u.token, body: { results: [] } })).status).toBe(400);
  });

  it("reconcile on a valid chat answers 409", async () => {
    const u = await createTestUser();
    const chat = await newChat(u, { content: [] });
    const res = await expectJson<{ code: string; detail: string }>(
      await api(`/chats/${chat.id}/reconcile-invalid`, { method: "POST", token: u.token }),
      409,
    );
    expect(res).toMatchObject({ code: "transition_not_allowed", detail: "ReconcileInvalidState is not allowed from W" });
  });
});
