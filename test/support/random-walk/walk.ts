/**
 * R1's walk: fast-check commands over the public API, each applied to the reference model
 * (model.ts) and to a real `wrangler dev` over HTTP, then compared. After every step the touched
 * chat is awaited until it is where the model says it settles, and then its status, queue and
 * visible history must equal the model's; a call the model rejects must get exactly that 409 (or
 * 429) and leave the chat's rows byte-identical; the chat's version fields never go backwards.
 */
import fc from "fast-check";
import type pg from "pg";
import {
  apply,
  type Call,
  type ChatModel,
  CLIENT_TOOL,
  corruptible,
  create,
  editableRows,
  messageText,
  type Queued,
  type Reply,
  REPLIES,
  type Rejection,
  type Row,
  statusOf,
  visibleRows,
  type WalkModel,
} from "./model";

export interface WalkReal {
  base: string;
  /** One token per user; user i owns the chats the model gives owner i. */
  tokens: string[];
  pool: pg.Pool;
  /** Unique per run: the fake model counts scripted errors per prompt text for its whole life. */
  tag: string;
  counter: number;
  maxChats: number;
  /** Steps executed (checked commands), for the figures. */
  steps: number;
  /** Per call and starting state: how often it was accepted and where it settled, or its rejection. */
  stats: Map<string, number>;
  /** The newest messages and queue the API returned per chat (for ids the model cannot know). */
  seen: Map<string, Seen>;
  versions: Map<string, Versions>;
  /** How long a chat may take to settle where the model says. */
  settleMs: number;
  onStep?: (line: string) => void;
}

interface Seen {
  messages: ApiMessage[];
  queue: { id: number; content: Part[] }[];
}

type Versions = Record<(typeof VERSION_FIELDS)[number], number>;
const VERSION_FIELDS = ["snapshot_version", "history_version", "queue_version", "retry_state_version"] as const;

interface Part {
  type: string;
  text?: string;
  tool_name?: string;
  tool_call_id?: string;
}
interface ApiMessage {
  id: number;
  role: string;
  content: Part[];
}
interface ApiChat extends Record<string, unknown> {
  id: string;
  status: string;
  archived: boolean;
}

// ---- HTTP ----

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function http(r: WalkReal, user: number, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${r.base}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${r.tokens[user]}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const raw = await res.text();
  return { status: res.status, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
}

const text = (t: string) => [{ type: "text", text: t }];

/**
 * Whether the chat's rows are the same before and after a call that must write nothing. A hanging
 * turn's own worker may record a generation attempt or a retry meanwhile (its model call times out
 * after 60 s idle and is retried): that record alone, on a running chat, is not the call's write.
 */
function unchanged(before: string, after: string, running: boolean): boolean {
  if (before === after) return true;
  if (!running) return false;
  const a = JSON.parse(before) as { chat: Record<string, unknown> };
  const b = JSON.parse(after) as { chat: Record<string, unknown> };
  const attempt = a.chat.generation_attempt !== b.chat.generation_attempt || a.chat.retry_state_version !== b.chat.retry_state_version;
  if (!attempt) return false;
  for (const row of [a.chat, b.chat])
    for (const k of ["generation_attempt", "retry_state", "retry_state_version", "snapshot_version", "updated_at"]) delete row[k];
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The chat's rows as stored (not its lease heartbeats, which a running chat renews), as one text. */
async function rowsOf(r: WalkReal, chatId: string): Promise<string> {
  const { rows } = await r.pool.query<{ s: string }>(
    `SELECT jsonb_build_object(
       'chat', (SELECT to_jsonb(c) FROM chats c WHERE c.id = $1),
       'messages', (SELECT coalesce(jsonb_agg(to_jsonb(m) ORDER BY m.id), '[]') FROM chat_messages m WHERE m.chat_id = $1),
       'queue', (SELECT coalesce(jsonb_agg(to_jsonb(q) ORDER BY q.position), '[]') FROM chat_queued_messages q WHERE q.chat_id = $1)
     )::text AS s`,
    [chatId],
  );
  return rows[0]!.s;
}

// ---- comparing the API with the model ----

function labelOf(m: ApiMessage): string {
  const call = m.content.find((p) => p.type === "tool-call");
  const result = m.content.find((p) => p.type === "tool-result");
  const texts = m.content
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
  if (m.role === "assistant") return call ? `call:${call.tool_name}` : `text:${texts}`;
  if (m.role === "tool") return `result:${result?.tool_name}`;
  return texts;
}

/** A model label ending in "…" fixes only the start (the echo of a tool result holds the result's JSON). */
const labelMatches = (model: string, real: string) => (model.endsWith("…") ? real.startsWith(model.slice(0, -1)) : model === real);

interface Observed {
  chat: ApiChat;
  seen: Seen;
}

async function observe(r: WalkReal, c: ChatModel): Promise<Observed> {
  const chat = await http(r, c.owner, "GET", `/chats/${c.id}`);
  const msgs = await http(r, c.owner, "GET", `/chats/${c.id}/messages`);
  if (chat.status !== 200 || msgs.status !== 200)
    throw new Error(`chat ${c.key}: GET answered ${chat.status} / ${msgs.status}: ${JSON.stringify([chat.body, msgs.body])}`);
  const seen = { messages: msgs.body.messages as ApiMessage[], queue: msgs.body.queued_messages as Seen["queue"] };
  return { chat: chat.body as ApiChat, seen };
}

/** Every difference between what the API shows and the model, as lines; empty when they agree. */
function differences(c: ChatModel, o: Observed): string[] {
  const out: string[] = [];
  const want = statusOf(c.state);
  if (o.chat.status !== want.status || o.chat.archived !== want.archived)
    out.push(
      `status ${o.chat.status}${o.chat.archived ? " (archived)" : ""}, model ${c.state} = ${want.status}${want.archived ? " (archived)" : ""}`,
    );
  const queue = o.seen.queue.map((q) => q.content.map((p) => p.text ?? "").join(""));
  const modelQueue = c.queue.map((q) => q.text);
  if (JSON.stringify(queue) !== JSON.stringify(modelQueue)) out.push(`queue ${JSON.stringify(queue)}, model ${JSON.stringify(modelQueue)}`);
  // A hanging turn is quiescent only once its model call started (RecordGenerationAttempt):
  // before that, the worker is still about to write.
  if ((c.state === "R0" || c.state === "R1") && Number(o.chat.generation_attempt) < 1)
    out.push(`generation_attempt ${o.chat.generation_attempt}: the hanging turn's model call has not started`);
  const real = o.seen.messages.map((m) => `${m.role} ${labelOf(m)}`);
  const line = (row: Row) => `${row.role} ${row.label}`;
  const withOptional = visibleRows(c).map(line);
  const without = visibleRows(c)
    .filter((row) => !row.optional)
    .map(line);
  const same = (model: string[]) => real.length === model.length && real.every((l, i) => labelMatches(model[i]!, l));
  if (!same(withOptional) && !same(without))
    out.push(
      `history\n      api:   ${JSON.stringify(real)}\n      model: ${JSON.stringify(withOptional)}${withOptional.length > without.length ? " (a row marked optional may be missing)" : ""}`,
    );
  return out;
}

/** The API showed whether each optional row is there: the model keeps that from now on. */
function resolveOptional(c: ChatModel, o: Observed): void {
  if (!c.rows.some((row) => row.optional)) return;
  const present = o.seen.messages.length === visibleRows(c).length;
  c.rows = c.rows.filter((row) => present || !row.optional).map(({ optional: _, ...row }) => row);
}

function checkVersions(r: WalkReal, c: ChatModel, chat: ApiChat): void {
  const now = Object.fromEntries(VERSION_FIELDS.map((f) => [f, Number(chat[f])])) as Versions;
  const before = r.versions.get(c.id);
  if (before) {
    const back = VERSION_FIELDS.filter((f) => now[f] < before[f]);
    if (back.length > 0)
      throw new Error(`chat ${c.key}: version went backwards: ${back.map((f) => `${f} ${before[f]} -> ${now[f]}`).join(", ")}`);
  }
  r.versions.set(c.id, now);
}

/** Polls the chat until it is where the model says it settles; throws naming both if it never gets there. */
async function settle(r: WalkReal, c: ChatModel, step: string): Promise<void> {
  const deadline = Date.now() + r.settleMs;
  let o = await observe(r, c);
  checkVersions(r, c, o.chat);
  let diff = differences(c, o);
  while (diff.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    o = await observe(r, c);
    checkVersions(r, c, o.chat);
    diff = differences(c, o);
  }
  r.seen.set(c.id, o.seen);
  if (diff.length === 0) resolveOptional(c, o);
  if (diff.length > 0)
    throw new Error(
      `after ${step}: chat ${c.key} (${c.id}) awaited ${r.settleMs} ms for the model's ${c.state}; the API shows:\n    ${diff.join("\n    ")}\n    chat: ${JSON.stringify(pickFields(o.chat))}`,
    );
}

/** The fields that say why a chat is where it is, for a failure's message. */
const pickFields = (chat: ApiChat) =>
  Object.fromEntries(
    ["status", "archived", "last_error", "retry_state", "generation_attempt", "worker_id", ...VERSION_FIELDS].map((k) => [k, chat[k]]),
  );

const clone = (c: ChatModel): ChatModel => ({ ...c, rows: c.rows.map((row) => ({ ...row })), queue: c.queue.map((q) => ({ ...q })) });

function nextMessage(r: WalkReal, reply: Reply): Queued {
  r.counter += 1;
  return { text: messageText(reply, `${r.tag}n${r.counter}`), reply };
}

/** Counts a step; every 100th is a progress line (the long run takes minutes). */
function stepTaken(r: WalkReal): void {
  r.steps += 1;
  if (r.steps % 100 === 0) r.onStep?.(JSON.stringify({ event: "random_walk_progress", tag: r.tag, steps: r.steps }));
}

const count = (r: WalkReal, key: string) => r.stats.set(key, (r.stats.get(key) ?? 0) + 1);

// ---- the commands ----

type WalkCommand = fc.AsyncCommand<WalkModel, WalkReal>;

const pickChat = (m: WalkModel, pick: number): ChatModel => m.chats[pick % m.chats.length]!;

class CreateChat implements WalkCommand {
  constructor(
    readonly owner: number,
    readonly first: Reply | null,
  ) {}
  // The cap is the run's (WalkReal), which check cannot see: run() skips a create beyond it.
  check = () => true;
  async run(m: WalkModel, r: WalkReal): Promise<void> {
    if (m.chats.length >= r.maxChats) return;
    stepTaken(r);
    const owner = this.owner % r.tokens.length;
    const first = this.first === null ? null : nextMessage(r, this.first);
    const res = await http(r, owner, "POST", "/chats", {
      content: first === null ? [] : text(first.text),
      title: "walk",
      unsafe_dynamic_tools: [{ name: CLIENT_TOOL, description: "asks the user" }],
    });
    if (res.status !== 201) throw new Error(`${this}: expected 201, got ${res.status} ${JSON.stringify(res.body)}`);
    const c = create(m.chats.length, res.body.id as string, owner, first);
    m.chats.push(c);
    count(r, `create -> ${c.state}`);
    await settle(r, c, this.toString());
  }
  toString = () => `create(user ${this.owner}, ${this.first ?? "empty"})`;
}

/** Draws for a call on a chat, resolved against the chat when it runs (indexes taken modulo). */
type CallDraw =
  | { kind: "send"; busy: "queue" | "interrupt"; reply: Reply }
  | { kind: "edit"; row: number; reply: Reply }
  | { kind: "delete_queued"; index: number }
  | { kind: "promote_queued"; index: number }
  | { kind: "interrupt" }
  | { kind: "tool_results" }
  | { kind: "compact" }
  | { kind: "clear" }
  | { kind: "archive"; interrupt: boolean }
  | { kind: "unarchive" }
  | { kind: "reconcile" };

const drawName = (d: CallDraw) => Object.values(d).join(" ");

class ChatCall implements WalkCommand {
  constructor(
    readonly pick: number,
    readonly draw: CallDraw,
  ) {}
  check = (m: Readonly<WalkModel>) =>
    m.chats.length > 0 && (this.draw.kind !== "edit" || editableRows(pickChat(m as WalkModel, this.pick)).length > 0);

  async run(m: WalkModel, r: WalkReal): Promise<void> {
    stepTaken(r);
    const c = pickChat(m, this.pick);
    const seen = r.seen.get(c.id) ?? { messages: [], queue: [] };
    const d = this.draw;
    let call: Call;
    let request: { method: string; path: string; body?: unknown };
    // An empty queue: an id no row has, which the API answers 404 (the model says not found too).
    const queueId = (index: number) => seen.queue[index]?.id ?? Number.MAX_SAFE_INTEGER;
    switch (d.kind) {
      case "send": {
        const message = nextMessage(r, d.reply);
        call = { kind: "send", busy: d.busy, message };
        request = { method: "POST", path: `/chats/${c.id}/messages`, body: { content: text(message.text), busy_behavior: d.busy } };
        break;
      }
      case "edit": {
        const rows = editableRows(c);
        const row = rows[d.row % rows.length]!;
        // The model's visible rows and the API's were equal after the last step: same index, same message.
        const visibleIndex = visibleRows(c).indexOf(c.rows[row]!);
        const message = nextMessage(r, d.reply);
        call = { kind: "edit", row, message };
        request = {
          method: "PATCH",
          path: `/chats/${c.id}/messages/${seen.messages[visibleIndex]!.id}`,
          body: { content: text(message.text) },
        };
        break;
      }
      case "delete_queued":
      case "promote_queued": {
        const index = c.queue.length > 0 ? d.index % c.queue.length : 0;
        call = { kind: d.kind, index };
        const id = queueId(index);
        request =
          d.kind === "delete_queued"
            ? { method: "DELETE", path: `/chats/${c.id}/queue/${id}` }
            : { method: "POST", path: `/chats/${c.id}/queue/${id}/promote` };
        break;
      }
      case "tool_results": {
        const pending = seen.messages.at(-1)?.content.find((p) => p.type === "tool-call" && p.tool_name === CLIENT_TOOL);
        call = { kind: "tool_results" };
        request = {
          method: "POST",
          path: `/chats/${c.id}/tool-results`,
          body: { results: [{ tool_call_id: pending?.tool_call_id ?? "call_none", output: { answer: "yes" } }] },
        };
        break;
      }
      case "archive":
        call = d;
        request = { method: "PATCH", path: `/chats/${c.id}`, body: d.interrupt ? { archived: true, interrupt: true } : { archived: true } };
        break;
      case "unarchive":
        call = d;
        request = { method: "PATCH", path: `/chats/${c.id}`, body: { archived: false } };
        break;
      case "reconcile":
        call = d;
        request = { method: "POST", path: `/chats/${c.id}/reconcile-invalid` };
        break;
      default:
        call = d;
        request = { method: "POST", path: `/chats/${c.id}/${d.kind}` };
    }
    const next = clone(c);
    const rejection = apply(next, call);
    const step = `${this} on chat ${c.key} in ${c.state}`;
    const before = rejection ? await rowsOf(r, c.id) : "";
    const res = await http(r, c.owner, request.method, request.path, request.body);
    count(r, `${d.kind} ${c.state} -> ${rejection ? `${rejection.status} ${rejection.code}` : next.state}`);
    if (rejection) {
      expectRejection(step, rejection, res);
      const after = await rowsOf(r, c.id);
      if (!unchanged(before, after, c.state === "R0" || c.state === "R1"))
        throw new Error(`${step}: rejected with ${res.status} but the chat's rows changed:\n  before ${before}\n  after  ${after}`);
    } else {
      if (res.status >= 300)
        throw new Error(`${step}: the model accepts it (lands ${next.state}); the API answered ${res.status} ${JSON.stringify(res.body)}`);
      // A send to an idle chat goes into history; to any other it is queued (its head may run at once).
      const queued = !(c.state === "W" || c.state === "E0");
      if (d.kind === "send" && res.body.queued !== queued)
        throw new Error(`${step}: the answer says queued: ${res.body.queued}; the model says ${queued}`);
      Object.assign(c, next);
    }
    await settle(r, c, step);
  }
  toString = () => `${drawName(this.draw)} (chat #${this.pick})`;
}

function expectRejection(step: string, want: Rejection, res: Answer): void {
  if (res.status !== want.status || res.body.code !== want.code)
    throw new Error(
      `${step}: the model rejects it with ${want.status} ${want.code}; the API answered ${res.status} ${JSON.stringify(res.body)}`,
    );
}

/** Another user calls the chat: the spec answers exactly as for a missing chat (404) and writes nothing. */
class ForeignCall implements WalkCommand {
  constructor(
    readonly pick: number,
    readonly offset: number,
    readonly what: "get" | "send" | "interrupt" | "archive",
  ) {}
  check = (m: Readonly<WalkModel>) => m.chats.length > 0;
  async run(m: WalkModel, r: WalkReal): Promise<void> {
    if (r.tokens.length < 2) return;
    stepTaken(r);
    const c = pickChat(m, this.pick);
    const intruder = (c.owner + 1 + (this.offset % (r.tokens.length - 1))) % r.tokens.length;
    const requests = {
      get: ["GET", `/chats/${c.id}`, undefined],
      send: ["POST", `/chats/${c.id}/messages`, { content: text("intruder") }],
      interrupt: ["POST", `/chats/${c.id}/interrupt`, undefined],
      archive: ["PATCH", `/chats/${c.id}`, { archived: true }],
    } as const;
    const [method, path, body] = requests[this.what];
    const before = await rowsOf(r, c.id);
    const res = await http(r, intruder, method, path, body);
    const step = `${this} on chat ${c.key} (owner ${c.owner}) as user ${intruder}`;
    count(r, `foreign ${this.what} -> 404`);
    expectRejection(step, { status: 404, code: "not_found" }, res);
    if (!unchanged(before, await rowsOf(r, c.id), c.state === "R0" || c.state === "R1"))
      throw new Error(`${step}: answered 404 but the chat's rows changed`);
    await settle(r, c, step);
  }
  toString = () => `foreign ${this.what} (chat #${this.pick})`;
}

/** The one direct write: no call makes an invalid chat, so the walk makes one for reconcile to repair. */
class Corrupt implements WalkCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<WalkModel>) => m.chats.length > 0 && corruptible(pickChat(m as WalkModel, this.pick));
  async run(m: WalkModel, r: WalkReal): Promise<void> {
    stepTaken(r);
    const c = pickChat(m, this.pick);
    await r.pool.query(`UPDATE chats SET status = 'running', archived = true, snapshot_version = snapshot_version + 1 WHERE id = $1`, [
      c.id,
    ]);
    count(r, `corrupt ${c.state} -> Invalid`);
    c.state = "Invalid";
    await settle(r, c, `${this} on chat ${c.key}`);
  }
  toString = () => `corrupt (chat #${this.pick})`;
}

const pick = fc.nat();

/**
 * The command arbitraries; repeats weight the draw (fast-check picks among them evenly). `replies`:
 * which fake-model replies messages may ask for (all of REPLIES by default).
 */
export function walkCommands(maxCommands: number, opts: { replayPath?: string | undefined; replies?: readonly Reply[] } = {}) {
  const { replayPath, replies = REPLIES } = opts;
  const reply = fc.constantFrom(...replies);
  const onChat = (draw: fc.Arbitrary<CallDraw>) => fc.tuple(pick, draw).map(([p, d]) => new ChatCall(p, d));
  const send = onChat(
    fc.record({ kind: fc.constant("send" as const), busy: fc.constantFrom("queue" as const, "interrupt" as const), reply }),
  );
  const arbs: fc.Arbitrary<WalkCommand>[] = [
    fc.tuple(fc.nat(), fc.option(reply, { nil: null, freq: 4 })).map(([o, f]) => new CreateChat(o, f)),
    fc.tuple(fc.nat(), fc.option(reply, { nil: null, freq: 4 })).map(([o, f]) => new CreateChat(o, f)),
    send,
    send,
    send,
    onChat(fc.record({ kind: fc.constant("edit" as const), row: fc.nat(), reply })),
    onChat(fc.record({ kind: fc.constant("delete_queued" as const), index: fc.nat() })),
    onChat(fc.record({ kind: fc.constant("promote_queued" as const), index: fc.nat() })),
    onChat(fc.constant({ kind: "interrupt" as const })),
    onChat(fc.constant({ kind: "interrupt" as const })),
    onChat(fc.constant({ kind: "tool_results" as const })),
    onChat(fc.constant({ kind: "tool_results" as const })),
    onChat(fc.constant({ kind: "compact" as const })),
    onChat(fc.constant({ kind: "clear" as const })),
    onChat(fc.record({ kind: fc.constant("archive" as const), interrupt: fc.boolean() })),
    onChat(fc.constant({ kind: "unarchive" as const })),
    onChat(fc.constant({ kind: "reconcile" as const })),
    fc
      .tuple(pick, fc.nat(), fc.constantFrom("get" as const, "send" as const, "interrupt" as const, "archive" as const))
      .map(([p, o, w]) => new ForeignCall(p, o, w)),
    pick.map((p) => new Corrupt(p)),
  ];
  // Unbiased: a biased first run draws a handful of commands; the walk wants long sequences.
  return fc.noBias(fc.commands(arbs, { maxCommands, size: "max", ...(replayPath ? { replayPath } : {}) }));
}

/** After a run: every chat must be in one of the spec's states (an invalid one is repaired first), then running ones are stopped. */
export async function finishRun(m: WalkModel, r: WalkReal): Promise<void> {
  for (const c of m.chats) {
    if (c.state === "Invalid") {
      const res = await http(r, c.owner, "POST", `/chats/${c.id}/reconcile-invalid`);
      if (res.status !== 200) throw new Error(`end of run: reconcile of chat ${c.key} answered ${res.status}`);
      apply(c, { kind: "reconcile" });
    }
    await settle(r, c, "end of run");
  }
}

/** Best effort: a run that failed midway may leave hanging turns; stop them so they hold nothing. */
export async function stopRunning(m: WalkModel, r: WalkReal): Promise<void> {
  for (const c of m.chats) {
    if (c.state.startsWith("R") || c.state.startsWith("A")) await http(r, c.owner, "POST", `/chats/${c.id}/interrupt`).catch(() => {});
  }
}
