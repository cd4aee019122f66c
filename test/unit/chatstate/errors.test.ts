import { describe, it, expect } from "vitest";
import {
  ChatNotFoundError,
  ChatStateError,
  InvalidStateError,
  MessageNotFoundError,
  QueuedMessageNotFoundError,
  TransitionNotAllowedError,
  TransitionVariantError,
  isChatStateError,
} from "../../../src/chatstate";

describe("domain errors", () => {
  it.each([
    [new TransitionNotAllowedError("SendMessage", "XW"), "TransitionNotAllowedError", "transition_not_allowed"],
    [new InvalidStateError({ chatId: "c", status: "running", archived: true, queueLength: 0 }), "InvalidStateError", "invalid_state"],
    [new ChatNotFoundError("c"), "ChatNotFoundError", "not_found"],
    [new QueuedMessageNotFoundError("c", 7), "QueuedMessageNotFoundError", "not_found"],
    [new MessageNotFoundError("c", 8), "MessageNotFoundError", "not_found"],
  ] as const)("%s has name %s and code %s", (error, name, code) => {
    expect(error).toBeInstanceOf(ChatStateError);
    expect(error).toBeInstanceOf(Error);
    expect(isChatStateError(error)).toBe(true);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
  });

  it("names the transition and state in TransitionNotAllowedError", () => {
    const error = new TransitionNotAllowedError("SendMessage", "XW");
    expect(error.message).toBe("SendMessage is not allowed from XW");
    expect(error).toMatchObject({ transition: "SendMessage", from: "XW" });
  });

  it("keeps the offending row's fields on InvalidStateError", () => {
    const error = new InvalidStateError({ status: "waiting", archived: false, queueLength: 3 });
    expect(error).toMatchObject({ chatId: undefined, status: "waiting", archived: false, queueLength: 3 });
  });

  it("keeps caller bugs out of the domain errors", () => {
    const error = new TransitionVariantError("FinishTurn", "R1", undefined, ["a", "b"]);
    expect(isChatStateError(error)).toBe(false);
    expect(error.name).toBe("TransitionVariantError");
    expect(error.expected).toEqual(["a", "b"]);
  });
});
