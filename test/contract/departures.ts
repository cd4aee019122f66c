/**
 * Where the service deliberately answers differently from Coder's wire, because the spec asks for
 * it (docs/api.md, "Coder compatibility"). Each entry names the route or socket and the field, and
 * why; the session does not count a difference that matches one. Only a difference that Coder's
 * clients survive belongs here: a field they ignore, or a value they read as absent.
 */
export interface Departure {
  /** Matches the route or socket part of a recorded difference, e.g. `GET /api/v2/chats/{chat} `. */
  where: RegExp;
  /** Matches the field path of the difference, e.g. `^last_model_config_id$`. */
  field: RegExp;
  why: string;
}

export const DELIBERATE_DEPARTURES: readonly Departure[] = [
  {
    // Every chat read and frame: GET/POST /chats, the chat routes that answer a Chat, /chats/watch.
    where: /./,
    field: /(^|\.)last_model_config_id$/,
    why:
      "null while the chat follows its organization's default (no model config given at create, send or edit): the spec " +
      "resolves the default when each turn starts, so it can change between turns, and naming it in every list, read and " +
      "watch frame would cost a lookup per chat. codersdk survives it: encoding/json " +
      "ignores null for a non-pointer uuid.UUID and leaves the zero UUID.",
  },
];

/** The departure a difference matches, if any. */
export function departureFor(where: string, problem: string): Departure | undefined {
  const field = problem.split(":")[0] ?? "";
  return DELIBERATE_DEPARTURES.find((d) => d.where.test(where) && d.field.test(field));
}
