// The binding compaction trigger, rule by rule (src/llm/compaction/trigger.ts).
import { describe, expect, it } from "vitest";
import {
  COMPACTION_OVERRIDE_WINDOW_PERCENT,
  compactionTriggers,
  DEFAULT_COMPRESSION_THRESHOLD_PERCENT,
  reachesTrigger,
  recordedTrigger,
  tokenPoint,
} from "../../../../src/llm/compaction/trigger";

const model = (contextLimit: number | null, compressionThreshold: number | null = null) => ({ contextLimit, compressionThreshold });

describe("the chat trigger", () => {
  it("is the model's compression_threshold against its context limit", () => {
    const t = compactionTriggers({ chatModel: model(10_000, 60), ownerThresholdPercent: null, override: null });
    expect(t.chat).toEqual({ kind: "chat", thresholdPercent: 60, contextLimitTokens: 10_000, tokenPoint: 6000, enabled: true });
    expect(t.binding).toBe(t.chat);
  });

  it("takes the owner's personal threshold over the model's", () => {
    const t = compactionTriggers({ chatModel: model(10_000, 60), ownerThresholdPercent: 25, override: null });
    expect(t.chat?.thresholdPercent).toBe(25);
    expect(t.chat?.tokenPoint).toBe(2500);
  });

  it("defaults the threshold when neither sets one", () => {
    const t = compactionTriggers({ chatModel: model(10_000), ownerThresholdPercent: null, override: null });
    expect(t.chat?.thresholdPercent).toBe(DEFAULT_COMPRESSION_THRESHOLD_PERCENT);
  });

  it("is disabled at 100 (by the owner or the model)", () => {
    for (const [owner, modelThreshold] of [
      [100, 50],
      [null, 100],
    ] as const) {
      const t = compactionTriggers({ chatModel: model(10_000, modelThreshold), ownerThresholdPercent: owner, override: null });
      expect(t.chat?.enabled).toBe(false);
      expect(t.binding).toBeNull();
    }
  });

  it("an owner's 100 disables even a low model threshold, an owner's 0 always compacts", () => {
    expect(compactionTriggers({ chatModel: model(1000, 10), ownerThresholdPercent: 100, override: null }).binding).toBeNull();
    const zero = compactionTriggers({ chatModel: model(1000, 90), ownerThresholdPercent: 0, override: null });
    expect(zero.binding?.tokenPoint).toBe(0);
    expect(reachesTrigger(0, zero.binding)).toBe(true);
  });

  it("does not exist without a known context limit", () => {
    expect(compactionTriggers({ chatModel: model(null, 50), ownerThresholdPercent: 10, override: null }).chat).toBeNull();
  });
});

describe("the organization trigger", () => {
  it("exists only while an override resolves, at 80% of the override's window, ignoring its own threshold", () => {
    expect(compactionTriggers({ chatModel: model(100_000, 90), ownerThresholdPercent: null, override: null }).organization).toBeNull();
    const t = compactionTriggers({ chatModel: model(100_000, 90), ownerThresholdPercent: null, override: { contextLimit: 50_000 } });
    expect(COMPACTION_OVERRIDE_WINDOW_PERCENT).toBe(80);
    expect(t.organization).toEqual({
      kind: "organization",
      thresholdPercent: 80,
      contextLimitTokens: 50_000,
      tokenPoint: 40_000,
      enabled: true,
    });
  });

  it("does not exist for an override without a known window", () => {
    expect(
      compactionTriggers({ chatModel: model(100_000, 90), ownerThresholdPercent: null, override: { contextLimit: null } }).organization,
    ).toBeNull();
  });

  it("never fires when its point is beyond the chat model's window", () => {
    const t = compactionTriggers({ chatModel: model(10_000, 100), ownerThresholdPercent: null, override: { contextLimit: 200_000 } });
    expect(t.organization?.enabled).toBe(false);
    // The chat trigger is disabled too: no automatic compaction at all.
    expect(t.binding).toBeNull();
    expect(reachesTrigger(1_000_000, t.organization)).toBe(false);
  });

  it("may fire when the chat model's window is unknown", () => {
    const t = compactionTriggers({ chatModel: model(null), ownerThresholdPercent: null, override: { contextLimit: 10_000 } });
    expect(t.binding?.kind).toBe("organization");
  });
});

describe("the binding trigger", () => {
  it("is the lower token point", () => {
    const chatLower = compactionTriggers({
      chatModel: model(100_000, 30),
      ownerThresholdPercent: null,
      override: { contextLimit: 50_000 },
    });
    expect(chatLower.binding?.kind).toBe("chat"); // 30,000 < 40,000
    const orgLower = compactionTriggers({ chatModel: model(100_000, 50), ownerThresholdPercent: null, override: { contextLimit: 50_000 } });
    expect(orgLower.binding?.kind).toBe("organization"); // 40,000 < 50,000
  });

  it("goes to the chat trigger on a tie", () => {
    const t = compactionTriggers({ chatModel: model(100_000, 40), ownerThresholdPercent: null, override: { contextLimit: 50_000 } });
    expect(t.chat?.tokenPoint).toBe(t.organization?.tokenPoint);
    expect(t.binding?.kind).toBe("chat");
  });

  it("is the organization's when the chat trigger is disabled", () => {
    const t = compactionTriggers({ chatModel: model(100_000, 100), ownerThresholdPercent: null, override: { contextLimit: 50_000 } });
    expect(t.binding?.kind).toBe("organization");
  });

  it("fires when the prompt reaches its point, not before, and never without usage", () => {
    const t = compactionTriggers({ chatModel: model(1000, 50), ownerThresholdPercent: null, override: null });
    expect(reachesTrigger(499, t.binding)).toBe(false);
    expect(reachesTrigger(500, t.binding)).toBe(true);
    expect(reachesTrigger(null, t.binding)).toBe(false);
  });

  it("rounds the point down", () => {
    expect(tokenPoint(999, 50)).toBe(499);
  });
});

describe("the trigger a summary records", () => {
  it("is the binding one, else the configured chat trigger (manual with 100%), else the organization's", () => {
    const binding = compactionTriggers({ chatModel: model(1000, 50), ownerThresholdPercent: null, override: null });
    expect(recordedTrigger(binding)).toBe(binding.binding);
    const disabled = compactionTriggers({ chatModel: model(1000, 100), ownerThresholdPercent: null, override: null });
    expect(recordedTrigger(disabled)).toMatchObject({ kind: "chat", thresholdPercent: 100 });
    const beyond = compactionTriggers({ chatModel: model(null), ownerThresholdPercent: null, override: null });
    expect(recordedTrigger(beyond)).toBeNull();
  });
});
