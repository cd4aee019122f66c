/**
 * MCP tools in running chats, against the real test MCP server of the stack
 * (scripts/test-mcp/server.ts: the SDK's McpServer over Streamable HTTP, requiring a bearer token
 * and a header): the fake model is offered the server's tools and calls them (`/offered-tools`,
 * `/tool`, `/parallel`), the chat object connects once per turn and closes at its end, a server
 * that cannot be reached is a warning part and the turn goes on, a tool error is an error result.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { testKeys } from "../support/test-keys";
import { api, expectJson, type TestUser, withDb } from "../worker/support/accounts";
import { modelUsers, releaseChatsOf, userWithModel } from "./support/model-user";
import { openStream } from "./support/stream-client";
import type { Message } from "./support/wire";

interface Stats {
  sessionsOpened: number;
  sessionsClosed: number;
  unauthorized: number;
  calls: Record<string, number>;
  cancelled: number;
}

const mcp = inject("mcpServer");
const nonce = () => crypto.randomUUID().slice(0, 8);

afterAll(() => releaseChatsOf(modelUsers), 60_000);

async function stats(): Promise<Stats> {
  return (await fetch(new URL("/_stats", mcp.url))).json() as Promise<Stats>;
}

async function register(admin: TestUser, over: Record<string, unknown> = {}): Promise<string> {
  const body = {
    name: "tools",
    url: mcp.url,
    bearer_token: mcp.token,
    headers: { "X-Test-Header": mcp.headerValue },
    ...over,
  };
  return (
    await expectJson<{ id: string }>(await api(`/organizations/${admin.organizationId}/mcp-servers`, { token: admin.token, body }), 201)
  ).id;
}

/** A server's stored credentials, as the table holds them. */
async function credentialsOf(id: string): Promise<{ headers: Record<string, string> } & Record<string, unknown>> {
  return withDb(
    async (db) =>
      (
        await db.$client.query(
          "SELECT bearer_token, bearer_token_sealed_with, headers, headers_sealed_with FROM mcp_servers WHERE id = $1",
          [id],
        )
      ).rows[0],
  );
}

/** MCP servers are registered by organization admins. */
const adminWithModel = () => userWithModel({ role: "admin" });

async function messagesOf(user: TestUser, id: string): Promise<Message[]> {
  return (await expectJson<{ messages: Message[] }>(await api(`/chats/${id}/messages`, { token: user.token }), 200)).messages;
}

async function untilWaiting(user: TestUser, id: string): Promise<{ status: string; last_error: { message: string } | null }> {
  const read = async () =>
    expectJson<{ status: string; last_error: { message: string } | null }>(await api(`/chats/${id}`, { token: user.token }), 200);
  await expect.poll(async () => (await read()).status, { timeout: 30_000, interval: 100 }).toBe("waiting");
  return read();
}

async function start(user: TestUser, text: string, mcpServerIds: string[]): Promise<string> {
  const body = { content: text ? [{ type: "text", text }] : [], mcp_server_ids: mcpServerIds };
  return (await expectJson<{ id: string }>(await api("/chats", { token: user.token, body }), 201)).id;
}

async function turn(user: TestUser, id: string, text: string): Promise<Message[]> {
  const before = (await messagesOf(user, id)).length;
  await expectJson(await api(`/chats/${id}/messages`, { token: user.token, body: { content: [{ type: "text", text }] } }), 200);
  await untilWaiting(user, id);
  return (await messagesOf(user, id)).slice(before);
}

const results = (messages: Message[]) => messages.flatMap((m) => m.content).filter((p) => p.type === "tool-result");
const textOf = (m: Message | undefined) =>
  (m?.content ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");

/** The MCP tools among those offered (`<server>__<tool>`; a root chat also gets the subagent tools). */
const mcpNames = (offered: { name: string }[]) =>
  offered
    .map((t) => t.name)
    .filter((name) => name.includes("__"))
    .sort();

describe("MCP tools", () => {
  it("offers the server's tools as <server>__<tool>, runs calls through the model, and reuses one session per turn", async () => {
    const u = await adminWithModel();
    const server = await register(u);
    const id = await start(u, "", [server]);

    const offered = JSON.parse(textOf((await turn(u, id, `/offered-tools ${nonce()}`)).at(-1))) as { name: string; description: string }[];
    expect(mcpNames(offered)).toEqual(["tools__add", "tools__echo", "tools__fail", "tools__sleep"]);
    expect(offered.find((t) => t.name === "tools__echo")?.description).toContain("Echoes the text back.");

    const before = await stats();
    const call = await turn(u, id, `/tool tools__echo {"text":"hello ${nonce()}"}`);
    expect(call.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(results(call)).toEqual([
      expect.objectContaining({ tool_name: "tools__echo", is_error: false, result: { content: expect.stringMatching(/^echo: hello /) } }),
    ]);
    expect(textOf(call.at(-1))).toContain("tool result received");
    // Two model steps and one tool run in this turn: one session, closed once the turn ended.
    await expect
      .poll(
        async () => {
          const s = await stats();
          return [
            s.sessionsOpened - before.sessionsOpened,
            s.sessionsClosed - before.sessionsClosed,
            (s.calls.echo ?? 0) - (before.calls.echo ?? 0),
          ];
        },
        { timeout: 10_000 },
      )
      .toEqual([1, 1, 1]);
    expect((await stats()).unauthorized).toBe(before.unauthorized);
  });

  it("runs parallel calls and carries structured content", async () => {
    const u = await adminWithModel();
    const server = await register(u);
    const calls = [
      { name: "tools__add", args: { a: 2, b: 3 } },
      { name: "tools__echo", args: { text: "side by side" } },
    ];
    const id = await start(u, `/parallel ${JSON.stringify(calls)}`, [server]);
    expect((await untilWaiting(u, id)).last_error).toBeNull();
    expect(results(await messagesOf(u, id))).toEqual([
      expect.objectContaining({ tool_name: "tools__add", is_error: false, result: { content: "5", structured_content: { sum: 5 } } }),
      expect.objectContaining({ tool_name: "tools__echo", is_error: false, result: { content: "echo: side by side" } }),
    ]);
  });

  it("an isError result and a failed call are error results; the turn completes", async () => {
    const u = await adminWithModel();
    const server = await register(u);
    const id = await start(u, `/tool tools__fail {"message":"boom ${nonce()}"}`, [server]);
    expect((await untilWaiting(u, id)).last_error).toBeNull();
    const first = await messagesOf(u, id);
    expect(results(first)).toEqual([
      expect.objectContaining({ tool_name: "tools__fail", is_error: true, result: { error: expect.stringMatching(/^boom /) } }),
    ]);
    expect(textOf(first.at(-1))).toContain("tool result received");

    // Arguments the server's schema refuses: the server answers with an error, the model reads it.
    const bad = await turn(u, id, `/tool tools__add {"a":"not a number"}`);
    expect(results(bad)).toEqual([expect.objectContaining({ tool_name: "tools__add", is_error: true })]);
    expect((await untilWaiting(u, id)).last_error).toBeNull();
  });

  it("a server that cannot be reached is a warning part in the stream and is skipped; the others' tools still work", async () => {
    const u = await adminWithModel();
    const good = await register(u);
    const down = await register(u, { name: "down", url: "http://127.0.0.1:9/mcp" });
    const wrongKey = await register(u, { name: "locked", bearer_token: "wrong" });
    const id = await start(u, "", [good, down, wrongKey]);
    const stream = await openStream(u, id);
    try {
      const call = await turn(u, id, `/tool tools__echo {"text":"still here"}`);
      expect(results(call)).toEqual([expect.objectContaining({ is_error: false, result: { content: "echo: still here" } })]);
      const warnings = () =>
        stream.events.flatMap((e) =>
          e.message_part?.part.type === "warning" ? [e.message_part.part as unknown as { code: string; message: string }] : [],
        );
      await expect.poll(() => warnings().length, { timeout: 10_000 }).toBeGreaterThan(0);
      const messages = warnings().map((w) => `${w.code} ${w.message}`);
      // The server's name and a fixed reason: nothing the server or the SDK said.
      expect(messages).toContain('mcp_connect_failed MCP server "down" could not be reached (connection failed); its tools are skipped');
      expect(messages).toContain('mcp_connect_failed MCP server "locked" could not be reached (HTTP 401); its tools are skipped');
      expect(messages.join("\n")).not.toContain(mcp.token);
      expect(messages.join("\n")).not.toContain("unauthorized");

      const offered = JSON.parse(textOf((await turn(u, id, `/offered-tools ${nonce()}`)).at(-1))) as { name: string }[];
      expect(mcpNames(offered)).toEqual(["tools__add", "tools__echo", "tools__fail", "tools__sleep"]);
    } finally {
      stream.ws.close();
    }
  });

  it("only the chat's own servers: a chat without mcp_server_ids is offered none, and a server's later edit applies from the next turn", async () => {
    const u = await adminWithModel();
    const server = await register(u);
    const plain = await start(u, "", []);
    expect(mcpNames(JSON.parse(textOf((await turn(u, plain, `/offered-tools ${nonce()}`)).at(-1))))).toEqual([]);

    const id = await start(u, "", [server]);
    await expectJson(
      await api(`/organizations/${u.organizationId}/mcp-servers/${server}`, { method: "PATCH", token: u.token, body: { name: "renamed" } }),
      200,
    );
    const offered = JSON.parse(textOf((await turn(u, id, `/offered-tools ${nonce()}`)).at(-1))) as { name: string }[];
    expect(mcpNames(offered)).toEqual(["renamed__add", "renamed__echo", "renamed__fail", "renamed__sleep"]);
  });

  it("keeps a server's credentials sealed at rest, and connects with them, as with ones stored in the clear before sealing", async () => {
    const u = await adminWithModel();
    const sealed = await register(u, { name: "sealed" });
    const legacy = await register(u, { name: "legacy" });
    const stored = await credentialsOf(sealed);
    expect(stored).toMatchObject({ bearer_token_sealed_with: testKeys.currentId, headers_sealed_with: testKeys.currentId });
    expect(Object.keys(stored.headers)).toEqual(["X-Test-Header"]);
    expect(JSON.stringify(stored)).not.toContain(mcp.token);
    expect(JSON.stringify(stored)).not.toContain(mcp.headerValue);
    // As a row written before migration 0015: plaintext, no key ids.
    await withDb((db) =>
      db.$client.query(
        "UPDATE mcp_servers SET bearer_token = $2, bearer_token_sealed_with = NULL, headers = $3, headers_sealed_with = NULL WHERE id = $1",
        [legacy, mcp.token, JSON.stringify({ "X-Test-Header": mcp.headerValue })],
      ),
    );
    const before = await stats();
    const id = await start(u, "", [sealed, legacy]);
    const offered = JSON.parse(textOf((await turn(u, id, `/offered-tools ${nonce()}`)).at(-1))) as { name: string }[];
    expect(mcpNames(offered)).toEqual([
      "legacy__add",
      "legacy__echo",
      "legacy__fail",
      "legacy__sleep",
      "sealed__add",
      "sealed__echo",
      "sealed__fail",
      "sealed__sleep",
    ]);
    expect((await stats()).unauthorized).toBe(before.unauthorized);
  });

  it("a credential copied from another organization's server does not open: the server is skipped and nothing is sent", async () => {
    const victim = await adminWithModel();
    const victimServer = await register(victim, { name: "victim" });
    const u = await adminWithModel();
    const copied = await register(u, { name: "copied", bearer_token: "placeholder", headers: {} });
    await withDb((db) =>
      db.$client.query(
        `UPDATE mcp_servers AS m SET bearer_token = v.bearer_token, bearer_token_sealed_with = v.bearer_token_sealed_with,
           headers = v.headers, headers_sealed_with = v.headers_sealed_with
         FROM mcp_servers AS v WHERE m.id = $1 AND v.id = $2`,
        [copied, victimServer],
      ),
    );
    const id = await start(u, "", [copied]);
    const stream = await openStream(u, id);
    try {
      const before = await stats();
      const offered = JSON.parse(textOf((await turn(u, id, `/offered-tools ${nonce()}`)).at(-1))) as { name: string }[];
      // The victim's token is valid at the test server: had it been opened and sent, the tools would be offered.
      expect(mcpNames(offered)).toEqual([]);
      await expect
        .poll(() =>
          stream.events.some(
            (e) =>
              e.message_part?.part.type === "warning" &&
              JSON.stringify(e.message_part.part).includes("could not be reached (credentials cannot be opened)"),
          ),
        )
        .toBe(true);
      const after = await stats();
      expect([after.sessionsOpened - before.sessionsOpened, after.unauthorized - before.unauthorized]).toEqual([0, 0]);
    } finally {
      stream.ws.close();
    }
  });

  it("an interrupt during a call cancels it on the server and closes the turn's session", async () => {
    const u = await adminWithModel();
    const server = await register(u);
    const before = await stats();
    const id = await start(u, `/tool tools__sleep {"ms":20000}`, [server]);
    await expect.poll(async () => ((await stats()).calls.sleep ?? 0) - (before.calls.sleep ?? 0), { timeout: 15_000 }).toBe(1);
    await expectJson(await api(`/chats/${id}/interrupt`, { method: "POST", token: u.token }), 200);
    expect((await untilWaiting(u, id)).last_error).toBeNull();
    await expect
      .poll(
        async () => {
          const s = await stats();
          return [s.cancelled - before.cancelled, s.sessionsClosed - before.sessionsClosed];
        },
        { timeout: 10_000 },
      )
      .toEqual([1, 1]);
  });
});

describe("MCP hardening (docs/hardening.md)", () => {
  const dohUrl = inject("dohUrl");
  const port = Number(new URL(mcp.url).port);
  /** What the project's fake resolver answers for `name` from now on (test/support/fake-doh.ts). */
  const answer = async (name: string, a: string[]) => {
    const res = await fetch(new URL("/_answers", dohUrl), { method: "POST", body: JSON.stringify({ name, records: { a } }) });
    expect(res.status).toBe(204);
  };
  const warningsOf = (stream: Awaited<ReturnType<typeof openStream>>) =>
    stream.events.flatMap((e) =>
      e.message_part?.part.type === "warning" ? [e.message_part.part as unknown as { code: string; message: string }] : [],
    );

  it("checks a server's URL again at connect time: a refusal is a warning naming it, and nothing reaches it", async () => {
    const u = await adminWithModel();
    const good = await register(u);
    // Public when registered, loopback by the time the chat connects (DNS rebinding).
    const name = `rebind-${nonce()}.test`;
    await answer(name, ["93.184.215.14"]);
    const rebound = await register(u, { name: "rebound", url: `http://${name}:${port}/mcp` });
    await answer(name, ["127.0.0.1"]);
    // The test server under a host the allow-list does not name, as after the operator narrowed it:
    // written directly, since the route refuses it now. Had it been let through, the server would
    // have counted an unauthorized request (the row has no credentials).
    const unlisted = await withDb(
      async (db) =>
        (
          await db.$client.query<{ id: string }>(
            "INSERT INTO mcp_servers (organization_id, name, url) VALUES ($1, 'unlisted', $2) RETURNING id",
            [u.organizationId, `http://localhost:${port}/mcp`],
          )
        ).rows[0]!.id,
    );
    const before = await stats();
    const id = await start(u, "", [good, rebound, unlisted]);
    const stream = await openStream(u, id);
    try {
      const call = await turn(u, id, `/tool tools__echo {"text":"guarded ${nonce()}"}`);
      expect(results(call)).toEqual([expect.objectContaining({ tool_name: "tools__echo", is_error: false })]);
      await expect.poll(() => warningsOf(stream).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      const messages = warningsOf(stream).map((w) => `${w.code} ${w.message}`);
      expect(messages).toContain(
        'mcp_connect_failed MCP server "rebound" could not be reached (address not allowed); its tools are skipped',
      );
      expect(messages).toContain(
        'mcp_connect_failed MCP server "unlisted" could not be reached (address not allowed); its tools are skipped',
      );
      expect(messages.join("\n")).not.toMatch(/127\.0\.0\.1|localhost|rebind-/);
    } finally {
      stream.ws.close();
    }
    // Only the good server's one session reached the test server; the refused ones sent nothing.
    await expect.poll(async () => (await stats()).sessionsOpened - before.sessionsOpened, { timeout: 10_000 }).toBe(1);
    expect((await stats()).unauthorized).toBe(before.unauthorized);
  });

  it("a server failing with a body of its own is a warning with its HTTP status, never the body", async () => {
    const u = await adminWithModel();
    const broken = await register(u, { name: "broken", url: new URL("/broken", mcp.url).href });
    const id = await start(u, "", [broken]);
    const stream = await openStream(u, id);
    try {
      await stream.until((e) => e.type === "status");
      // Paced, so the episode still runs when the stream follows it (parts are live only).
      await turn(u, id, `/slow 30 paced reply ${nonce()}`);
      await expect.poll(() => warningsOf(stream).length, { timeout: 10_000 }).toBeGreaterThan(0);
      const warning = warningsOf(stream)[0]!;
      expect(warning).toEqual({
        type: "warning",
        code: "mcp_connect_failed",
        message: 'MCP server "broken" could not be reached (HTTP 500); its tools are skipped',
      });
      // scripts/test-mcp/server.ts BROKEN_BODY: only the object's logs may hold it.
      expect(JSON.stringify(stream.events)).not.toMatch(/Traceback|upstream-secret/);
    } finally {
      stream.ws.close();
    }
  });

  it("cuts a tool's output past CHAT_MCP_TOOL_OUTPUT_MAX_BYTES (4096 here) for the model and the history", async () => {
    const u = await adminWithModel();
    const server = await register(u);
    const id = await start(u, "", [server]);
    // "echo: " and 5,000 x: 5,006 bytes.
    const call = await turn(u, id, `/tool tools__echo {"text":"${"x".repeat(5000)}"}`);
    const cut = `echo: ${"x".repeat(4090)}\n[output truncated: 5006 bytes, showing the first 4096]`;
    expect(results(call)).toEqual([expect.objectContaining({ tool_name: "tools__echo", is_error: false, result: { content: cut } })]);
    // The model read the cut form (the fake model echoes the result it was sent)...
    const reply = textOf(call.at(-1));
    expect(reply).toContain("[output truncated: 5006 bytes, showing the first 4096]");
    expect(reply).not.toContain("x".repeat(4091));
    // ...and the history keeps it, which later turns resend.
    expect(results(await messagesOf(u, id))).toEqual([expect.objectContaining({ result: { content: cut } })]);
  });
});
