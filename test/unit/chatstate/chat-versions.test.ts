import { describe, expect, it } from "vitest";
import { type ChatVersions, notificationOfVersions, ownershipOf, versionsFromNotification, versionsFromRow } from "../../../src/chatstate";

const WORKER = "a7c0c1f4-5a52-4e1c-9d5c-3f2a1b0c9d8e";

const VERSIONS: ChatVersions = {
  snapshotVersion: 9,
  historyVersion: 7,
  queueVersion: 3,
  retryStateVersion: 2,
  generationAttempt: 1,
  status: "running",
  workerId: WORKER,
};

describe("ownershipOf", () => {
  it("is U without a worker and O with one", () => {
    expect(ownershipOf({ workerId: null })).toBe("U");
    expect(ownershipOf({ workerId: WORKER })).toBe("O");
  });
});

describe("versionsFromRow", () => {
  it("keeps the version fields of a row and nothing else", () => {
    const row = { ...VERSIONS, id: "c1", runnerId: "r1", archived: false, title: "t" };
    expect(versionsFromRow(row)).toStrictEqual(VERSIONS);
  });
});

describe("versionsFromNotification", () => {
  it("reads the payload's snake_case fields, and notificationOfVersions writes them back", () => {
    const payload = { ...notificationOfVersions(VERSIONS), chat_id: "c1", runner_id: null, archived: false };
    expect(payload).toMatchObject({
      snapshot_version: 9,
      history_version: 7,
      queue_version: 3,
      retry_state_version: 2,
      generation_attempt: 1,
      status: "running",
      worker_id: WORKER,
    });
    expect(versionsFromNotification(payload)).toStrictEqual(VERSIONS);
    expect(versionsFromNotification({ ...payload, worker_id: null }).workerId).toBeNull();
  });
});
