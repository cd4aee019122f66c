/**
 * The runner's per-turn decisions (spec "Local state": "per-turn decisions that must hold across
 * all steps of a turn, keyed by the turn's prompt row"): today whether the turn searches its MCP
 * tools (docs/mcp.md#tool-search). Each step is its own task, so the decision lives here, on the
 * runner, in memory only: a new runner after a handoff decides again.
 *
 * - The first step that asks decides; later steps of the same turn get that answer, so a setting
 *   changed mid-turn applies from the next turn and never withdraws a find_tools call issued.
 * - Turns are keyed by their prompt's message id, which only grows: a late step of an older turn gets a
 *   decision of its own and never replaces a newer turn's.
 * - A step without a prompt row (turn -1) is not cached; a read that fails is not kept (the next
 *   step reads again).
 */
import type { TurnDecisions } from "../tools/chat-tools";

export class RunnerTurnDecisions implements TurnDecisions {
  #turn = -1;
  #toolSearch: Promise<boolean> | null = null;
  /** Rule reads made, for tests: steps that reuse a decision read nothing. */
  reads = 0;

  mcpToolSearch(turn: number, read: () => Promise<boolean>): Promise<boolean> {
    if (turn === this.#turn && this.#toolSearch) return this.#toolSearch;
    this.reads++;
    const decided = read();
    if (turn < 0 || turn < this.#turn) return decided;
    this.#turn = turn;
    this.#toolSearch = decided;
    decided.catch(() => {
      if (this.#toolSearch === decided) this.#toolSearch = null;
    });
    return decided;
  }
}
