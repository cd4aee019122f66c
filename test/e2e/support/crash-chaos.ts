/**
 * R2, crash chaos: rounds of "set chats going, SIGKILL the runtime at a random instant, restart it
 * on the same address and Durable Object storage, and check nothing was lost or doubled".
 *
 * A round gives three fresh chats one operation each (a stream, a send, a queued send, an edit, an
 * interrupt, a pending client tool call, tool results, a manual compaction, a send or an interrupt
 * right after the restart), each with a stream
 * client watching. The operations are timed around a kill instant drawn from the round's seed, so
 * the kill lands mid-stream, with a request in flight, just after one was answered, or at rest.
 * After the restart the test stands in for the Cron Trigger (a sweep every 0.5 s: wrangler dev
 * fires no crons) and checks:
 *  - every chat settles (waiting, or requires_action when a tool call is pending), never stuck
 *    running, within one stale threshold plus a margin of the restart;
 *  - every request answered 2xx is in history exactly once, an unanswered one at most once,
 *    nothing appears twice, every user message has its one answer (a prefix of it when
 *    interrupted), a compaction answered 202 landed once;
 *  - every stream client, reconnected with its cursors, holds exactly the history the API serves
 *    (same ids once each, same revisions and content, same status), with no part gap.
 * Each round's plan comes from (seed, round) alone, so `CRASH_SEED` and `CRASH_FROM_ROUND` replay it.
 */
import { seededRandom } from "../../../src/seeded-random";
import type { WranglerDev } from "../../../scripts/lib/wrangler-dev";
import { TOOL_RESULT_PREFIX } from "../../../scripts/fake-model/script";
import { type Deployment, STALE_THRESHOLD_MS, words } from "./deployment";
import { StreamWatch, type VisibleRow } from "./stream-watch";

/** After the restart, every chat settles within the stale threshold plus this (sweep cadence, acquisition, two short replies). */
export const CONVERGENCE_MARGIN_MS = 6_000;
const SWEEP_EVERY_MS = 500;
const CLIENT_CATCH_UP_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;

export const KINDS = [
  "stream",
  "send",
  "queue",
  "edit",
  "interrupt",
  "requires_action",
  "tool_results",
  "compact",
  // Right after the restart, on a chat the dead runtime may still own (its lease not yet stale).
  "send_after",
  "interrupt_after",
] as const;
export type Kind = (typeof KINDS)[number];
const ROTATION: readonly Kind[] = [
  "interrupt",
  "compact",
  "requires_action",
  "edit",
  "tool_results",
  "send",
  "queue",
  "stream",
  "send_after",
  "interrupt_after",
];

export interface ChaosFigures {
  seed: number;
  rounds: number;
  kills: number;
  operations: number;
  answered: number;
  unanswered: number;
  /** Answered requests missing from history / messages found more than once: both must stay 0. */
  lost: number;
  duplicated: number;
  slowestConvergenceMs: number;
  slowestRestartMs: number;
  byKind: Record<string, number>;
  /** Chats by where the kill caught them (mid-turn, mid-compaction, requires_action, interrupting, at rest; + request in flight). */
  killPoints: Record<string, number>;
  /** Rounds that failed (only with `keepGoing`; otherwise the first failure throws). */
  failures: { round: number; message: string }[];
  seconds: number;
}

/** A round's check failed; how many answered messages it found missing, and how many doubled. */
class RoundFailure extends Error {
  constructor(
    message: string,
    readonly lost: number,
    readonly duplicated: number,
  ) {
    super(message);
  }
}

/** The seeded generator every seeded suite uses (src/seeded-random.ts). */
export const rng = seededRandom;

interface Plan {
  kinds: Kind[];
  /** The kill, in ms after the round's start. */
  killAtMs: number;
  /** Each chat's operation, in ms after the round's start (clamped at 0). */
  opAtMs: number[];
}

export function planRound(seed: number, round: number): Plan {
  const next = rng((seed ^ Math.imul(round + 1, 0x9e3779b1)) >>> 0);
  // The round's first kind walks every kind in turn, the rarer kill points first (a short slice hits them).
  const kinds: Kind[] = [
    ROTATION[round % ROTATION.length]!,
    KINDS[Math.floor(next() * KINDS.length)]!,
    KINDS[Math.floor(next() * KINDS.length)]!,
  ];
  const killAtMs = Math.round(150 + next() * 1_850);
  // An operation lands up to 0.5 s before the kill (answered just before it) or up to 50 ms after
  // its start (in flight when it comes).
  const opAtMs = kinds.map(() => Math.max(0, Math.round(killAtMs - 500 + next() * 550)));
  return { kinds, killAtMs, opAtMs };
}

interface Answer {
  status: number | "none";
  body: unknown;
  error?: string;
}

interface ChatCase {
  index: number;
  kind: Kind;
  id: string;
  tag: string;
  /** user text → the answer the fake model gives it. */
  echoes: Map<string, string>;
  /** Message ids an answered request committed; queue ids an answered send created. */
  committed: number[];
  queued: number[];
  deletedByEdit: number[];
  /** Texts sent by a request whose answer never came: at most once in history. */
  unknownTexts: string[];
  interrupted: boolean;
  /** An edit whose answer never came: the original or its replacement is live, not both, not neither. */
  editUnknown?: { original: number; text: string };
  compactAnswered: boolean;
  compactUnknown: boolean;
  /** The client tool call is pending until the test answers it. */
  toolPending: boolean;
  /** Its operation's request is out, not yet answered. */
  inFlight: boolean;
  watch: StreamWatch;
  op?: { name: string; answer: Answer; sentAt: number; ms: number };
}

interface RoundResult {
  /** Each operation: its name, its answer's status ("none": never came) and how long it took. */
  ops: string[];
  /** Where the kill caught each chat, as the database held it then (the runtime dead, nothing moves). */
  killPoints: string[];
  convergenceMs: number;
  restartMs: number;
  operations: number;
  answered: number;
  unanswered: number;
}

export class CrashChaos {
  #dev: WranglerDev;
  #port: number;
  readonly #d: Deployment;
  readonly #log: (line: Record<string, unknown>) => void;
  #sweeps = 0;

  private constructor(d: Deployment, dev: WranglerDev, log: (line: Record<string, unknown>) => void) {
    this.#d = d;
    this.#dev = dev;
    this.#port = Number(new URL(dev.url).port);
    this.#log = log;
  }

  static async start(d: Deployment, log: (line: Record<string, unknown>) => void): Promise<CrashChaos> {
    return new CrashChaos(d, await d.start({ state: "chaos" }), log);
  }

  get url(): string {
    return this.#dev.url;
  }

  async run(opts: { seed: number; kills: number; fromRound?: number; deadlineAt?: number; keepGoing?: boolean }): Promise<ChaosFigures> {
    const started = Date.now();
    const figures: ChaosFigures = {
      seed: opts.seed,
      rounds: 0,
      kills: 0,
      operations: 0,
      answered: 0,
      unanswered: 0,
      lost: 0,
      duplicated: 0,
      slowestConvergenceMs: 0,
      slowestRestartMs: 0,
      byKind: {},
      killPoints: {},
      failures: [],
      seconds: 0,
    };
    const first = opts.fromRound ?? 0;
    for (let round = first; round < first + opts.kills; round++) {
      if (opts.deadlineAt !== undefined && Date.now() > opts.deadlineAt) {
        this.#log({ event: "crash_deadline", round, note: "time bound reached; stopping early" });
        break;
      }
      const plan = planRound(opts.seed, round);
      let result: RoundResult;
      try {
        result = await this.#round(round, plan);
      } catch (err) {
        const message =
          `crash chaos failed at seed ${opts.seed} round ${round} (${plan.kinds.join(", ")}; kill at ${plan.killAtMs} ms)\n` +
          `replay: CRASH_SEED=${opts.seed} CRASH_FROM_ROUND=${round} CRASH_KILLS=1\n${err instanceof Error ? err.message : String(err)}`;
        if (err instanceof RoundFailure) {
          figures.lost += err.lost;
          figures.duplicated += err.duplicated;
        }
        if (!opts.keepGoing) throw new Error(message);
        // The long run records the failure and goes on, on a runtime known to answer.
        figures.failures.push({ round, message });
        this.#log({ event: "crash_round_failed", seed: opts.seed, round, message });
        await this.#ensureRunning();
        continue;
      }
      figures.rounds += 1;
      figures.kills += 1;
      figures.operations += result.operations;
      figures.answered += result.answered;
      figures.unanswered += result.unanswered;
      figures.slowestConvergenceMs = Math.max(figures.slowestConvergenceMs, result.convergenceMs);
      figures.slowestRestartMs = Math.max(figures.slowestRestartMs, result.restartMs);
      for (const k of plan.kinds) figures.byKind[k] = (figures.byKind[k] ?? 0) + 1;
      for (const p of result.killPoints) figures.killPoints[p] = (figures.killPoints[p] ?? 0) + 1;
      this.#log({
        event: "crash_round",
        seed: opts.seed,
        round,
        done: figures.rounds,
        of: opts.kills,
        kinds: plan.kinds,
        kill_at_ms: plan.killAtMs,
        caught: result.killPoints,
        ops: result.ops,
        restart_ms: result.restartMs,
        converged_ms: result.convergenceMs,
        operations: result.operations,
        unanswered: result.unanswered,
        elapsed_s: Math.round((Date.now() - started) / 1000),
      });
    }
    figures.seconds = Math.round((Date.now() - started) / 1000);
    return figures;
  }

  // ---- one round --------------------------------------------------------------------------------

  async #round(round: number, plan: Plan): Promise<RoundResult> {
    const cases: ChatCase[] = [];
    try {
      // Chats that must reach a resting point first, streaming ones last (so they still stream at the kill).
      const streaming = (k: Kind) => !["send", "requires_action", "tool_results", "compact"].includes(k);
      const order = plan.kinds.map((k, i) => ({ k, i })).sort((a, b) => Number(streaming(a.k)) - Number(streaming(b.k)));
      for (const { k, i } of order) cases[i] = await this.#prepare(round, i, k);
      await this.#awaitPrepared(cases);

      // Go: operations at their instants, the kill at its own.
      const t0 = Date.now();
      const ops = cases.map((c, i) => this.#at(t0 + plan.opAtMs[i]!, () => this.#operate(c)));
      await this.#at(t0 + plan.killAtMs, async () => {});
      process.kill(-this.#dev.pid, "SIGKILL");
      const inFlight = cases.map((c) => c.inFlight);
      const killPoints = await Promise.all(
        cases.map(async (c, i) => `${await this.#killPoint(c)}${inFlight[i] ? " + request in flight" : ""}`),
      );
      await Promise.all(ops);
      await this.#dev.stop(); // reaps the killed group; nothing left to stop

      const restartStarted = Date.now();
      this.#dev = await this.#d.start({ state: "chaos", port: this.#port });
      const restartMs = Date.now() - restartStarted;
      const ready = Date.now();
      const sweeping = this.#sweepUntil();
      try {
        await Promise.all(cases.map((c) => this.#operate(c, true)));
        for (const c of cases)
          if (c.op?.name === "send after the restart" && c.op.answer.status !== 200)
            throw new Error(
              `chat ${c.index}: a send to the restarted runtime answered ${c.op.answer.status} ${JSON.stringify(c.op.answer.body)}`,
            );
        await this.#settle(cases, ready, "after the restart");
        const convergenceMs = Date.now() - ready;
        // A client tool call still pending is answered now; its turn then finishes like any other.
        let answeredLate = 0;
        for (const c of cases) {
          const status = await this.#status(c.id);
          if (status !== "requires_action") continue;
          const answer = await this.#submitToolResults(c);
          if (answer.status !== 204)
            throw new Error(
              `chat ${c.index} (${c.kind}): tool results after the restart answered ${answer.status}: ${JSON.stringify(answer.body)}`,
            );
          c.toolPending = false;
          answeredLate += 1;
        }
        if (answeredLate > 0) await this.#settle(cases, Date.now(), "after the late tool results");
        await this.#verify(cases);
        await this.#clientsCatchUp(cases);
        const answered = cases.filter((c) => c.op && typeof c.op.answer.status === "number").length;
        const sent = cases.filter((c) => c.op).length;
        return {
          ops: cases.flatMap((c) => (c.op ? [`${c.op.name} ${c.op.answer.status} ${c.op.ms}ms`] : [])),
          killPoints,
          convergenceMs,
          restartMs,
          // Each case's creation and its timed operation, plus the late tool results.
          operations: cases.length + sent + answeredLate,
          answered: cases.length + answered + answeredLate,
          unanswered: sent - answered,
        };
      } finally {
        sweeping.stop();
        await sweeping.done;
      }
    } catch (err) {
      const detail = cases
        .filter(Boolean)
        .map(
          (c) =>
            `chat ${c.index} ${c.kind} ${c.id}: op ${c.op ? `${c.op.name} at ${c.op.sentAt - (cases[0]?.op?.sentAt ?? c.op.sentAt)} ms → ${c.op.answer.status} ${c.op.answer.error ?? ""}` : "none"}`,
        );
      const message = `${err instanceof Error ? err.message : String(err)}\n${detail.join("\n")}`;
      throw err instanceof RoundFailure ? new RoundFailure(message, err.lost, err.duplicated) : new Error(message);
    } finally {
      for (const c of cases) c?.watch.close(); // sparse if a preparation failed
    }
  }

  async #prepare(round: number, index: number, kind: Kind): Promise<ChatCase> {
    const tag = `r${round}c${index}`;
    const echoes = new Map<string, string>();
    const say = (text: string, echo: string) => {
      echoes.set(text, echo);
      return text;
    };
    const stream = (n: number) => {
      const answer = words(n, `${tag}w`);
      return say(`/slow 40 ${answer}`, answer);
    };
    let content: string | null;
    let tools: unknown[] | undefined;
    switch (kind) {
      case "stream":
      case "queue":
      case "edit":
      case "interrupt":
      case "send_after":
      case "interrupt_after":
        content = stream(60);
        break;
      case "send":
        content = null; // an idle chat: the timed send starts its first turn
        break;
      case "requires_action":
      case "tool_results":
        content = `/tool client_tool {"tag":"${tag}"}`;
        echoes.set(content, TOOL_RESULT_PREFIX);
        tools = [{ name: "client_tool", description: "runs on the test's side", input_schema: { type: "object" } }];
        break;
      case "compact":
        content = say(`hello ${tag}`, `hello ${tag}`);
        break;
    }
    const created = await this.#request("POST", "/chats", {
      content: content === null ? [] : [{ type: "text", text: content }],
      ...(tools ? { unsafe_dynamic_tools: tools } : {}),
    });
    if (created.status !== 201)
      throw new Error(`creating chat ${index} (${kind}) answered ${created.status}: ${JSON.stringify(created.body)}`);
    const id = (created.body as { id: string }).id;
    const c: ChatCase = {
      index,
      kind,
      id,
      tag,
      echoes,
      committed: [],
      queued: [],
      deletedByEdit: [],
      unknownTexts: [],
      interrupted: false,
      compactAnswered: false,
      compactUnknown: false,
      toolPending: kind === "requires_action" || kind === "tool_results",
      inFlight: false,
      watch: new StreamWatch(this.#dev.url, this.#d.token, id),
    };
    if (content !== null) {
      const msgs = await this.#request("GET", `/chats/${id}/messages`);
      const first = (msgs.body as { messages: { id: number }[] }).messages[0];
      if (!first) throw new Error(`chat ${index} (${kind}) has no first message`);
      c.committed.push(first.id);
    }
    return c;
  }

  /** Each case's starting point: streaming, waiting for its tool results, or idle with an answer. */
  async #awaitPrepared(cases: ChatCase[]): Promise<void> {
    // A streaming chat counts once a worker took it up; it may have finished already (then the kill lands at rest).
    const want = (c: ChatCase) =>
      c.kind === "requires_action" || c.kind === "tool_results"
        ? ["requires_action"]
        : c.kind === "compact" || c.kind === "send"
          ? ["waiting"]
          : ["running", "waiting"];
    await this.#until(
      async () => {
        for (const c of cases) {
          const row = await this.#chatRow(c.id);
          if (!want(c).includes(row.status) || (row.status === "running" && row.worker_id === null))
            return `chat ${c.index} (${c.kind}) is ${row.status}${row.worker_id === null ? ", not owned" : ""}`;
          if (!c.watch.stream.connected) return `chat ${c.index}'s stream is not open`;
        }
        return null;
      },
      30_000,
      "each chat at its starting point",
    );
  }

  async #operate(c: ChatCase, afterRestart = false): Promise<void> {
    const sentAt = Date.now();
    const later = c.kind === "send_after" || c.kind === "interrupt_after";
    // A stream and a pending tool call have no operation: the kill lands on them as they are.
    if (later !== afterRestart || c.kind === "stream" || c.kind === "requires_action") return;
    c.inFlight = true;
    try {
      c.op = await this.#send(c, sentAt);
    } finally {
      c.inFlight = false;
    }
  }

  async #send(c: ChatCase, sentAt: number): Promise<NonNullable<ChatCase["op"]>> {
    let name: string;
    let answer: Answer;
    switch (c.kind) {
      case "stream":
      case "requires_action":
        throw new Error(`${c.kind} has no operation`); // the kill lands on the stream, or on the pending call
      case "send":
      case "queue":
      case "send_after": {
        const answerText = words(20, `${c.tag}s`);
        const text = `/slow 30 ${answerText}`;
        c.echoes.set(text, answerText);
        name = c.kind === "send" ? "send" : c.kind === "queue" ? "send (queued)" : "send after the restart";
        answer = await this.#request("POST", `/chats/${c.id}/messages`, { content: [{ type: "text", text }] });
        if (answer.status === 200) {
          const body = answer.body as { message?: { id: number }; queued_message?: { id: number }; messages: { id: number }[] };
          for (const m of body.messages) c.committed.push(m.id);
          if (body.queued_message) c.queued.push(body.queued_message.id);
        } else c.unknownTexts.push(text);
        break;
      }
      case "edit": {
        const answerText = words(20, `${c.tag}e`);
        const text = `/slow 30 ${answerText}`;
        c.echoes.set(text, answerText);
        name = "edit";
        const original = c.committed[0]!;
        answer = await this.#request("PATCH", `/chats/${c.id}/messages/${original}`, { content: [{ type: "text", text }] });
        if (answer.status === 200) {
          const body = answer.body as { message: { id: number }; messages: { id: number }[]; deleted_message_ids: number[] };
          c.deletedByEdit.push(...body.deleted_message_ids);
          c.committed = c.committed.filter((id) => !body.deleted_message_ids.includes(id));
          c.committed.push(body.message.id, ...body.messages.map((m) => m.id));
        } else {
          // Unanswered: the edit may have landed or not; exactly one of the two versions is live.
          c.unknownTexts.push(text);
          c.editUnknown = { original, text };
          c.committed = c.committed.filter((id) => id !== original);
        }
        break;
      }
      case "interrupt":
      case "interrupt_after":
        name = "interrupt";
        answer = await this.#request("POST", `/chats/${c.id}/interrupt`);
        // Accepted, or no answer (it may have landed): the last answer may be cut short. Refused
        // (409: the turn was over): the answer must be whole.
        c.interrupted = answer.status === "none" || answer.status < 300 || answer.status >= 500;
        break;
      case "tool_results":
        name = "tool results";
        answer = await this.#submitToolResults(c);
        if (answer.status === 204) c.toolPending = false;
        break;
      case "compact":
        name = "compact";
        answer = await this.#request("POST", `/chats/${c.id}/compact`);
        if (answer.status === 200) c.compactAnswered = true;
        else if (answer.status === "none" || answer.status >= 500) c.compactUnknown = true;
        break;
    }
    return { name, answer, sentAt, ms: Date.now() - sentAt };
  }

  async #submitToolResults(c: ChatCase): Promise<Answer> {
    const pending = await this.#d.own.pool.query<{ content: { type: string; tool_call_id?: string }[] }>(
      "SELECT content FROM chat_messages WHERE chat_id = $1 AND role = 'assistant' AND NOT deleted ORDER BY id DESC LIMIT 1",
      [c.id],
    );
    const calls = (pending.rows[0]?.content ?? []).filter((p) => p.type === "tool-call").map((p) => p.tool_call_id!);
    return this.#request("POST", `/chats/${c.id}/tool-results`, {
      results: calls.map((id) => ({ tool_call_id: id, output: { done: c.tag } })),
    });
  }

  // ---- after the restart -------------------------------------------------------------------------

  /** Every chat settled: not running or interrupting, no compaction pending, no queue left behind. */
  async #settle(cases: ChatCase[], since: number, what: string): Promise<void> {
    const bound = STALE_THRESHOLD_MS + CONVERGENCE_MARGIN_MS;
    await this.#until(
      async () => {
        for (const c of cases) {
          const row = await this.#chatRow(c.id);
          const allowed = c.toolPending ? ["requires_action", "waiting"] : ["waiting"];
          if (!allowed.includes(row.status) || row.compaction_requested_at !== null || row.queued > 0)
            return `chat ${c.index} (${c.kind}) is ${row.status}${row.compaction_requested_at ? ", compaction pending" : ""}${row.queued > 0 ? `, ${row.queued} queued` : ""}${row.last_error ? `, last_error ${row.last_error}` : ""}, owner ${row.worker_id}`;
        }
        return null;
      },
      Math.max(0, since + bound - Date.now()),
      `every chat settled within ${bound} ms ${what}`,
    );
  }

  /** The database against what the requests were answered. */
  async #verify(cases: ChatCase[]): Promise<void> {
    const problems: string[] = [];
    for (const c of cases) {
      const raw = await this.#d.own.pool.query<{
        id: string;
        role: string;
        content: { type: string; text?: string; tool_call_id?: string; tool_name?: string }[];
        deleted: boolean;
        model_only: boolean;
        compressed: boolean;
        queued_message_id: string | null;
      }>("SELECT id, role, content, deleted, model_only, compressed, queued_message_id FROM chat_messages WHERE chat_id = $1 ORDER BY id", [
        c.id,
      ]);
      // bigint columns arrive as strings; the API's ids are JSON numbers.
      const rows = raw.rows.map((r) => ({
        ...r,
        id: Number(r.id),
        queued_message_id: r.queued_message_id === null ? null : Number(r.queued_message_id),
      }));
      const say = (p: string) => problems.push(`chat ${c.index} (${c.kind}): ${p}`);
      const live = rows.filter((r) => !r.deleted);
      const text = (r: (typeof rows)[number]) => r.content.map((p) => p.text ?? "").join("");
      // Answered requests: in history, once (ids are unique; deleted only by an answered edit).
      for (const id of c.committed) {
        const row = rows.find((r) => r.id === id);
        if (!row) say(`answered message ${id} is not in history (lost)`);
        else if (row.deleted) say(`answered message ${id} is deleted (lost)`);
      }
      if (c.editUnknown) {
        const { original, text: replacement } = c.editUnknown;
        const versions = live.filter((r) => r.id === original || (r.role === "user" && text(r) === replacement)).length;
        if (versions !== 1) say(`${versions} versions of the edited message are live (original or its replacement, one expected)`);
      }
      for (const id of c.deletedByEdit) if (live.some((r) => r.id === id)) say(`message ${id} the edit deleted is live`);
      for (const q of c.queued) {
        const n = live.filter((r) => r.queued_message_id === q).length;
        if (n !== 1) say(`queued message ${q} is in history ${n} times ${n === 0 ? "(lost)" : "(duplicated)"}`);
      }
      // Nothing twice: user texts carry the case's tag, so each is unique; so is each answer.
      const turns = live.filter((r) => !r.model_only && !r.compressed && r.role !== "system");
      const users = turns.filter((r) => r.role === "user").map(text);
      for (const t of new Set(users))
        if (users.filter((u) => u === t).length > 1) say(`user message "${t.slice(0, 40)}" is in history twice (duplicated)`);
      for (const t of c.unknownTexts) {
        const n = users.filter((u) => u === t).length;
        if (n > 1) say(`unanswered request's message is in history ${n} times (duplicated)`);
      }
      const callIds = turns.flatMap((r) => r.content.filter((p) => p.type === "tool-call").map((p) => p.tool_call_id));
      if (new Set(callIds).size !== callIds.length) say(`a tool call twice: ${callIds.join(",")} (duplicated)`);
      // Each user message has its one answer, in order.
      for (let i = 0; i < turns.length; i++) {
        if (turns[i]!.role !== "user") continue;
        const asked = text(turns[i]!);
        const echo = c.echoes.get(asked);
        if (echo === undefined) {
          say(`user message "${asked.slice(0, 40)}" was never sent`);
          continue;
        }
        let j = i + 1;
        while (j < turns.length && turns[j]!.role !== "user") j++;
        const reply = turns.slice(i + 1, j);
        const shape = reply.map((r) => r.role).join(",");
        // Too few answers is a lost one, too many a duplicated one; the right count with the wrong text is neither.
        const expected = echo === TOOL_RESULT_PREFIX ? 2 : 1;
        const answers = reply.filter((r) => r.role === "assistant").length;
        const tag = answers < expected ? " (lost)" : answers > expected ? " (duplicated)" : "";
        if (echo === TOOL_RESULT_PREFIX) {
          if (shape !== "assistant,tool,assistant" || !text(reply[2]!).startsWith(TOOL_RESULT_PREFIX))
            say(`the tool turn's reply is [${shape}] "${reply.map(text).join("|").slice(0, 80)}"${tag}`);
        } else if (c.interrupted && j === turns.length) {
          // Cut short by the interrupt: nothing, or one answer that is a beginning of the full one.
          if (!(shape === "" || (shape === "assistant" && echo.startsWith(text(reply[0]!)))))
            say(`the interrupted reply is [${shape}] "${reply.map(text).join("|").slice(0, 80)}"${answers > 1 ? " (duplicated)" : ""}`);
        } else if (shape !== "assistant" || text(reply[0]!) !== echo) {
          say(
            `reply to "${asked.slice(0, 30)}" is [${shape}] "${reply.map(text).join("|").slice(0, 80)}", expected one answer "${echo.slice(0, 30)}…"${tag}`,
          );
        }
      }
      const summaries = live.filter((r) => r.role === "tool" && r.content.some((p) => p.tool_name === "chat_summarized")).length;
      if (c.compactAnswered && summaries !== 1)
        say(`compaction answered 202, ${summaries} summaries in history ${summaries === 0 ? "(lost)" : "(duplicated)"}`);
      if (!c.compactAnswered && !c.compactUnknown && summaries !== 0) say(`${summaries} summaries without a compaction request`);
      if (c.compactUnknown && summaries > 1) say(`${summaries} summaries for one compaction request (duplicated)`);
    }
    if (problems.length > 0)
      throw new RoundFailure(
        `history check failed:\n${problems.join("\n")}`,
        problems.filter((p) => p.includes("(lost)")).length,
        problems.filter((p) => p.includes("(duplicated)")).length,
      );
  }

  /** Every stream client, reconnected with its cursors, holds exactly the API's history and status. */
  async #clientsCatchUp(cases: ChatCase[]): Promise<void> {
    await this.#until(
      async () => {
        for (const c of cases) {
          if (c.watch.connections.length < 2)
            return `chat ${c.index}'s stream has not reconnected (${c.watch.connections.length} connections)`;
          const msgs = await this.#request("GET", `/chats/${c.id}/messages`);
          const chat = await this.#request("GET", `/chats/${c.id}`);
          if (msgs.status !== 200 || chat.status !== 200) return `reading chat ${c.index} answered ${msgs.status}/${chat.status}`;
          const rows = (msgs.body as { messages: VisibleRow[] }).messages;
          const diff = c.watch.differences(rows, (chat.body as { status: string }).status);
          if (diff.length > 0) return `chat ${c.index} (${c.kind}) client: ${diff.join("; ")}`;
        }
        return null;
      },
      CLIENT_CATCH_UP_MS,
      "every stream client to hold the API's history",
    );
    const problems = cases.flatMap((c) =>
      [...c.watch.problems, ...c.watch.partGaps()].map((p) => `chat ${c.index} (${c.kind}) stream: ${p}`),
    );
    if (problems.length > 0) throw new Error(`stream check failed:\n${problems.join("\n")}`);
  }

  /** After a failed round: the runtime answers, or it is started again. */
  async #ensureRunning(): Promise<void> {
    const ok = await fetch(`${this.#dev.url}/api/v2/health`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await this.#dev.stop();
    this.#dev = await this.#d.start({ state: "chaos", port: this.#port });
  }

  // ---- plumbing ----------------------------------------------------------------------------------

  /** The Cron Trigger's stand-in: a sweep every 0.5 s until stopped (failures are retried, not fatal). */
  #sweepUntil(): { stop(): void; done: Promise<void> } {
    let running = true;
    const done = (async () => {
      while (running) {
        await fetch(`${this.#dev.url}/__scheduled?cron=*+*+*+*+*`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(() => {});
        this.#sweeps += 1;
        await new Promise((r) => setTimeout(r, SWEEP_EVERY_MS));
      }
    })();
    return { stop: () => (running = false), done };
  }

  async #request(method: string, path: string, body?: unknown): Promise<Answer> {
    try {
      const res = await fetch(`${this.#dev.url}/api/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#d.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      return { status: "none", body: null, error: err instanceof Error ? err.message : String(err) };
    }
  }

  async #chatRow(id: string): Promise<{
    status: string;
    worker_id: string | null;
    compaction_requested_at: Date | null;
    last_error: string | null;
    queued: number;
  }> {
    const { rows } = await this.#d.own.pool.query(
      `SELECT status, worker_id, compaction_requested_at, last_error,
              (SELECT count(*)::int FROM chat_queued_messages q WHERE q.chat_id = c.id) AS queued
       FROM chats c WHERE id = $1`,
      [id],
    );
    if (!rows[0]) throw new Error(`chat ${id} is gone`);
    return rows[0];
  }

  /** The chat's state as the kill left it. */
  async #killPoint(c: ChatCase): Promise<string> {
    const row = await this.#chatRow(c.id);
    if (row.compaction_requested_at !== null) return "mid-compaction";
    if (row.status === "running") return row.worker_id === null ? "running, unowned" : "mid-turn";
    return row.status === "waiting" ? "at rest" : row.status;
  }

  async #status(id: string): Promise<string> {
    return (await this.#chatRow(id)).status;
  }

  async #at(when: number, fn: () => Promise<void>): Promise<void> {
    const wait = when - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await fn();
  }

  /** Polls `check` (null: satisfied; else what it saw) until it holds, or fails naming what was awaited and what was last seen. */
  async #until(check: () => Promise<string | null>, timeoutMs: number, awaited: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: string | null = "not checked";
    for (;;) {
      last = await check().catch((err: unknown) => `check failed: ${err instanceof Error ? err.message : String(err)}`);
      if (last === null) return;
      if (Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`waited ${timeoutMs} ms for ${awaited}; last seen: ${last}`);
  }
}
