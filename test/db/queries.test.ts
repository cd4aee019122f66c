/** Reads for the API and the wire shapes of docs/api.md. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chatToWire,
  getChat,
  listChats,
  listFamily,
  listMessages,
  listQueue,
  messageToWire,
  queuedToWire,
  updateChatMetadata,
} from "../../src/chats/index";
import { makeChat, makeEnv, makeOwner, text, type Env } from "./fixtures";
import { readChatView } from "../../src/chats/chat-views";
import { commitStep, editMessage } from "../../src/chats/transitions/index";
import { apply } from "./support/apply";

let env: Env;
beforeAll(async () => {
  env = await makeEnv();
});
afterAll(() => env.pool.end());

describe.concurrent("queries", () => {
  it("lists an owner's chats newest first, filtered by archived and labels, page by page", async () => {
    const owner = await makeOwner(env.pool);
    const mk = (labels: Record<string, string>) =>
      env.store.create({ organizationId: owner.organizationId, ownerId: owner.userId, content: [], labels }).then((c) => c.chat.id);
    const a = await mk({ team: "core" });
    const b = await mk({ team: "web" });
    const c = await mk({ team: "core", tier: "1" });
    await env.store.setArchived(b, true);
    expect((await listChats(env.pool, { ownerId: owner.userId })).map((x) => x.id)).toEqual([c, b, a]);
    expect((await listChats(env.pool, { ownerId: owner.userId, archived: false })).map((x) => x.id)).toEqual([c, a]);
    expect((await listChats(env.pool, { ownerId: owner.userId, labels: { team: "core" } })).map((x) => x.id)).toEqual([c, a]);
    expect((await listChats(env.pool, { ownerId: owner.userId, limit: 1, afterId: c })).map((x) => x.id)).toEqual([b]);
  });

  it("lists what the UI shows by default, and everything on request", async () => {
    const chat = await makeChat(env, "W");
    await apply(env.store, editMessage, chat.chatId, { messageId: chat.firstUserMessageId, content: text("v2") });
    await apply(env.store, commitStep, chat.chatId, {
      messages: [
        { role: "user", modelOnly: true, content: text("hidden context") },
        { role: "assistant", content: text("ok") },
      ],
    });
    const shown = await listMessages(env.pool, chat.chatId);
    expect(shown.map((m) => m.content)).toEqual([text("v2"), text("ok")]);
    const all = await listMessages(env.pool, chat.chatId, { includeDeleted: true, includeModelOnly: true });
    expect(all.map((m) => [m.deleted, m.modelOnly])).toEqual([
      [true, false],
      [true, false],
      [false, false],
      [false, true],
      [false, false],
    ]);
    expect((await listMessages(env.pool, chat.chatId, { afterId: shown[0]!.id })).map((m) => m.content)).toEqual([text("ok")]);
  });

  it("updates labels and pin order as metadata, without a snapshot bump", async () => {
    const chat = await makeChat(env, "W");
    const before = await getChat(env.pool, chat.chatId);
    const updated = await updateChatMetadata(env.pool, chat.chatId, { labels: { a: "b" }, pinOrder: 2 });
    expect(updated).toMatchObject({ labels: { a: "b" }, pinOrder: 2, snapshotVersion: before!.snapshotVersion });
    expect(await updateChatMetadata(env.pool, crypto.randomUUID(), { pinOrder: 1 })).toBeUndefined();
  });

  it("lists a family root first", async () => {
    const root = await makeChat(env, "W");
    const child = await env.store.create({
      organizationId: env.owner.organizationId,
      ownerId: env.owner.userId,
      parentChatId: root.chatId,
      content: [],
    });
    expect((await listFamily(env.pool, root.chatId)).map((c) => c.id)).toEqual([root.chatId, child.chat.id]);
  });
});

describe.concurrent("wire shapes", () => {
  it("maps rows to docs/api.md's snake_case Chat, ChatMessage and ChatQueuedMessage", async () => {
    const chat = await makeChat(env, "R1", { owned: true });
    const view = (await readChatView(env.pool, chat.chatId))!;
    const wire = chatToWire(view.chat, view);
    expect(Object.keys(wire).sort()).toEqual(
      [
        "id",
        "organization_id",
        "owner_id",
        "parent_chat_id",
        "root_chat_id",
        "title",
        "title_source",
        "title_updated_at",
        "status",
        "archived",
        "last_error",
        "labels",
        "pin_order",
        "last_model_config_id",
        "last_reasoning_effort",
        "project_id",
        "mcp_server_ids",
        "snapshot_version",
        "history_version",
        "queue_version",
        "retry_state_version",
        "generation_attempt",
        "retry_state",
        "requires_action_deadline_at",
        "worker_id",
        "created_at",
        "updated_at",
        "plan_mode",
        "summary",
        "last_turn_summary",
        "summary_updated_at",
        "has_unread",
        "client_type",
        "shared",
        "children",
      ].sort(),
    );
    expect(wire).toMatchObject({ id: chat.chatId, status: "running", archived: false, snapshot_version: expect.any(Number) });
    // The fixture committed an assistant step that the owner never opened the stream to see.
    expect(wire).toMatchObject({ has_unread: true, client_type: "api", shared: false, children: [] });
    expect(wire.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const [message] = await listMessages(env.pool, chat.chatId);
    expect(Object.keys(messageToWire(message!)).sort()).toEqual(
      [
        "id",
        "chat_id",
        "role",
        "content",
        "revision",
        "queued_message_id",
        "model_config_id",
        "reasoning_effort",
        "created_by",
        "created_at",
        "usage",
      ].sort(),
    );
    expect(messageToWire(message!, { withDeleted: true }).deleted).toBe(false);
    const [queued] = await listQueue(env.pool, chat.chatId);
    expect(queuedToWire(queued!)).toMatchObject({ id: chat.queue[0], chat_id: chat.chatId, position: 0, content: text("queued 0") });
  });
});
