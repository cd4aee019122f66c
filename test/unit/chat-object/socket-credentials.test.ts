/** SocketCredentials: when the open sockets' keys are rechecked, and which sockets a check closes. */
import { describe, expect, it } from "vitest";
import type { CredentialLapse } from "../../../src/accounts/lapsed-credentials";
import { ObjectCadence } from "../../../durable-objects/chat-object/object-cadence";
import {
  type CheckedSocket,
  CREDENTIAL_LAPSED_CODE,
  MIN_CHECK_MS,
  SocketCredentials,
} from "../../../durable-objects/chat-object/socket-credentials";

function socket(keyId: string | undefined) {
  const closes: { code: number; reason: string }[] = [];
  const checked: CheckedSocket = {
    session: keyId === undefined ? undefined : { requestId: "r", userId: "u", keyId, openedAt: 0 },
    close: (code, reason) => closes.push({ code, reason }),
  };
  return { checked, closes };
}

function checker(opts: { sockets: CheckedSocket[]; lapsed?: Map<string, CredentialLapse> | Error; intervalMs?: number; idleMs?: number }) {
  let now = 1_000_000;
  let woke = 0;
  const cadence = new ObjectCadence({ now: () => now, busy: () => false, idleMs: () => opts.idleMs ?? 0, woke: () => woke++ });
  const asked: string[][] = [];
  const credentials = new SocketCredentials({
    sockets: () => opts.sockets,
    openCount: () => opts.sockets.length,
    chatId: () => "chat",
    lapsed: async (_chat, keyIds) => {
      asked.push([...keyIds]);
      if (opts.lapsed instanceof Error) throw opts.lapsed;
      return opts.lapsed ?? new Map();
    },
    intervalMs: () => opts.intervalMs ?? 2_000,
    now: () => now,
    cadence,
  });
  return { credentials, cadence, asked, woke: () => woke, advance: (ms: number) => (now += ms), now: () => now };
}

describe("SocketCredentials", () => {
  it("needs no alarm without sockets, and one interval after the first look with them", () => {
    const none = checker({ sockets: [] });
    expect(none.credentials.dueAt()).toBeNull();
    const some = checker({ sockets: [socket("k1").checked] });
    expect(some.credentials.dueAt()).toBe(some.now() + 2_000);
    // CHAT_AUTH_CACHE_MS may be 0: the checks are still spaced.
    const eager = checker({ sockets: [socket("k1").checked], intervalMs: 0 });
    expect(eager.credentials.dueAt()).toBe(eager.now() + MIN_CHECK_MS);
  });

  it("asks once per key, and closes exactly the sockets whose key lapsed", async () => {
    const a1 = socket("a");
    const a2 = socket("a");
    const b = socket("b");
    const old = socket(undefined);
    const { credentials, asked, advance, now } = checker({
      sockets: [a1.checked, a2.checked, b.checked, old.checked],
      lapsed: new Map([["a", "revoked"]]),
    });
    credentials.dueAt();
    expect(credentials.checkIfDue(now())).toBeUndefined();
    advance(2_000);
    await credentials.checkIfDue(now());
    expect(asked).toEqual([["a", "b"]]);
    expect(a1.closes).toEqual([{ code: CREDENTIAL_LAPSED_CODE, reason: "the token or session was revoked" }]);
    expect(a2.closes).toHaveLength(1);
    expect(b.closes).toEqual([]);
    expect(old.closes).toEqual([]);
    // The next check is an interval later.
    expect(credentials.checkIfDue(now() + 1_999)).toBeUndefined();
  });

  it("closes nothing when the check itself fails", async () => {
    const s = socket("a");
    const { credentials, advance, now } = checker({ sockets: [s.checked], lapsed: new Error("database unreachable") });
    credentials.dueAt();
    advance(2_000);
    await credentials.checkIfDue(now());
    expect(s.closes).toEqual([]);
  });

  it("checks an idle chat's sockets every idle interval, and an overdue check is due at the chat's first sign of life", async () => {
    const s = socket("a");
    const { credentials, cadence, asked, woke, advance, now } = checker({ sockets: [s.checked], idleMs: 60_000 });
    const start = now();
    expect(credentials.dueAt()).toBe(start + 60_000);
    await credentials.checkIfDue(advance(60_000));
    expect(asked).toHaveLength(1);
    advance(30_000);
    expect(credentials.isDue(now())).toBe(false);
    // A command, a notification or a socket: active, and the last check is older than 2 s.
    cadence.touched();
    expect(woke()).toBe(1);
    expect(credentials.isDue(now())).toBe(true);
    await credentials.checkIfDue(now());
    expect(credentials.dueAt()).toBe(now() + 2_000);
    // Touches while active are not wake-ups.
    cadence.touched();
    expect(woke()).toBe(1);
  });
});
