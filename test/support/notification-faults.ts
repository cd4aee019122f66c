/**
 * R3's fault injector (docs/reliability.md, "R3: notification faults"): drops, duplicates,
 * reorders and delays what a ChatObject sends on the spec's two pubsub channels — `chat:update`
 * notifications and `chat:ownership` wake hints, delivered in memory to its own chat or by RPC to
 * another chat's object — so the suite can check that the sync poll and the cron sweep heal them.
 *
 * Test support only: a deployment's bundle never contains it. The fault suite bundles the Worker
 * from test/worker/support/notification-faults-entry.ts, whose ChatObject wraps what the object
 * publishes (ChatObject.notifier) with this injector. The plan (seed and rates) is the var
 * `CHAT_TEST_NOTIFICATION_FAULTS`.
 *
 * Each message's fate is drawn from the seed and the message's identity (channel, chat,
 * snapshot_version, how many times this object sent that identity), not from a shared stream, so
 * the same seed and workload give each notification the same fate however the objects interleave.
 */
import { seededRandom } from "../../src/seeded-random";
import type { ChatUpdatePayload, Notifier, OwnershipHint } from "../../src/chats/notifier";
import { errorText, logger } from "../../src/log/log";

export const NOTIFICATION_FAULTS_VAR = "CHAT_TEST_NOTIFICATION_FAULTS";

export interface NotificationFaultPlan {
  seed: number;
  /** Probability a message is not delivered at all. */
  drop: number;
  /** Probability a delivered message is delivered twice. */
  duplicate: number;
  /** Probability a copy is held back until after the object's next message (or `holdMs`). */
  reorder: number;
  /** Probability a copy is delivered after a random 0..`maxDelayMs`. */
  delay: number;
  maxDelayMs: number;
  holdMs: number;
}

export type FaultKind = "drop" | "duplicate" | "reorder" | "delay";
export type Channel = "update" | "wake";

const DEFAULTS: Omit<NotificationFaultPlan, "seed"> = {
  drop: 0.5,
  duplicate: 0.2,
  reorder: 0.2,
  delay: 0.2,
  maxDelayMs: 3_000,
  holdMs: 1_000,
};

const KEYS: Record<string, keyof NotificationFaultPlan> = {
  seed: "seed",
  drop: "drop",
  duplicate: "duplicate",
  reorder: "reorder",
  delay: "delay",
  max_delay_ms: "maxDelayMs",
  hold_ms: "holdMs",
};

/** `seed=7,drop=0.5,duplicate=0.2,reorder=0.2,delay=0.2,max_delay_ms=3000,hold_ms=1000` (all but seed optional). */
export function parseFaultPlan(text: string): NotificationFaultPlan {
  const plan: Partial<NotificationFaultPlan> = { ...DEFAULTS };
  for (const item of text.split(",").filter((s) => s.trim() !== "")) {
    const [name = "", value = ""] = item.split("=").map((s) => s.trim());
    const key = KEYS[name];
    const n = Number(value);
    if (!key || value === "" || !Number.isFinite(n) || n < 0) throw new Error(`${NOTIFICATION_FAULTS_VAR}: bad item "${item}"`);
    plan[key] = n;
  }
  if (plan.seed === undefined) throw new Error(`${NOTIFICATION_FAULTS_VAR}: seed is required`);
  const p = plan as NotificationFaultPlan;
  if (p.drop > 1 || p.duplicate > 1 || p.reorder + p.delay > 1)
    throw new Error(`${NOTIFICATION_FAULTS_VAR}: probabilities must be at most 1 (reorder + delay too)`);
  return p;
}

/** A small seeded generator per message: FNV-1a of the key, then mulberry32. */
export function draws(seed: number, key: string): () => number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return seededRandom(h);
}

interface Held {
  release(): void;
}

export class NotificationFaults {
  readonly #sent = new Map<string, number>();
  #held: Held[] = [];

  constructor(
    readonly plan: NotificationFaultPlan,
    /** Keeps the object alive for a delivery that waits (ctx.waitUntil). */
    private readonly keepAlive: (work: Promise<unknown>) => void,
    private readonly report: (fault: FaultKind, fields: Record<string, unknown>) => void = (fault, fields) =>
      logger.info("notification_fault", { fault, ...fields }),
  ) {}

  /** One message on `channel` about `chatId`; `deliver` is what an unfaulted send would do now. */
  send(channel: Channel, chatId: string, snapshotVersion: number, deliver: () => void): void {
    const identity = `${channel}:${chatId}:${snapshotVersion}`;
    const nth = (this.#sent.get(identity) ?? 0) + 1;
    this.#sent.set(identity, nth);
    const rand = draws(this.plan.seed, `${identity}:${nth}`);
    const fields = { channel, chat_id: chatId, snapshot_version: snapshotVersion };
    // Messages held back for reordering go out after this one, whatever becomes of it.
    const held = this.#held;
    this.#held = [];
    if (rand() < this.plan.drop) {
      this.report("drop", fields);
    } else {
      const copies = rand() < this.plan.duplicate ? 2 : 1;
      if (copies === 2) this.report("duplicate", fields);
      for (let i = 0; i < copies; i++) this.#dispatch(rand, deliver, fields);
    }
    for (const h of held) h.release();
  }

  /** The notifier with every message passed through `send`. */
  notifier(inner: Notifier): Notifier {
    return {
      chatUpdated: (p: ChatUpdatePayload) => this.send("update", p.chat_id, p.snapshot_version, () => inner.chatUpdated(p)),
      ownershipHint: (h: OwnershipHint) => this.send("wake", h.chat_id, h.snapshot_version, () => inner.ownershipHint(h)),
    };
  }

  #dispatch(rand: () => number, deliver: () => void, fields: Record<string, unknown>): void {
    const r = rand();
    if (r < this.plan.reorder) {
      this.report("reorder", fields);
      this.#later(this.plan.holdMs, deliver, true);
    } else if (r < this.plan.reorder + this.plan.delay) {
      const ms = Math.floor(rand() * this.plan.maxDelayMs);
      this.report("delay", { ...fields, delay_ms: ms });
      this.#later(ms, deliver, false);
    } else {
      safely(deliver);
    }
  }

  /** Delivers after `ms`; a held message goes earlier, right after the object's next one. */
  #later(ms: number, deliver: () => void, hold: boolean): void {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finished = new Promise<void>((resolve) => {
      const release = () => {
        if (done) return;
        done = true;
        if (timer !== undefined) clearTimeout(timer);
        if (hold) this.#held = this.#held.filter((h) => h !== entry);
        safely(deliver);
        resolve();
      };
      const entry: Held = { release };
      timer = setTimeout(release, ms);
      if (hold) this.#held.push(entry);
    });
    this.keepAlive(finished);
  }
}

function safely(deliver: () => void): void {
  try {
    deliver();
  } catch (err) {
    logger.warn("notification_fault_deliver_failed", { error: errorText(err) });
  }
}

/** The object's injector, from its vars; only called where the build compiled faults in. */
export function notificationFaults(env: unknown, keepAlive: (work: Promise<unknown>) => void): NotificationFaults | undefined {
  const text = (env as Record<string, unknown>)[NOTIFICATION_FAULTS_VAR];
  if (typeof text !== "string" || text.trim() === "") return undefined;
  return new NotificationFaults(parseFaultPlan(text), keepAlive);
}
