/**
 * What chats cost (docs/usage-cost.md): the open chat's total in its header, refreshed when its
 * status changes (a turn ended), and the signed-in user's total over the last 30 days in the
 * sidebar. The API's amounts are exact dollar strings; they are rounded here only for display, and
 * the exact amount, tokens and unpriced steps are in the tooltip.
 */
import { useEffect, useState } from "react";
import type { ChatdClient } from "../../client/src/index";

interface Totals {
  total_cost_usd: string;
  priced_message_count: number;
  unpriced_message_count: number;
  total_input_tokens: number;
  total_output_tokens: number;
}

/** "$12.34" from a dollar amount; under a dollar, four decimals ("$0.0145"), so small chats do not read as free. */
export function formatUsd(usd: string): string {
  const value = Number(usd);
  if (!Number.isFinite(value)) return `$${usd}`;
  return `$${value >= 1 || value === 0 ? value.toFixed(2) : value.toFixed(4)}`;
}

function tooltip(t: Totals): string {
  const unpriced = t.unpriced_message_count > 0 ? `; ${t.unpriced_message_count} step(s) of a model without prices` : "";
  return `$${t.total_cost_usd} exactly: ${t.total_input_tokens} input and ${t.total_output_tokens} output tokens over ${t.priced_message_count} priced step(s)${unpriced}`;
}

export function ChatCost({ client, chatId, status }: { client: ChatdClient; chatId: string; status: string | null }) {
  const [cost, setCost] = useState<Totals | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a status change (a turn ended) is when the cost moves
  useEffect(() => {
    void client
      .getChatCost({ chat: chatId, query: { turn_limit: 1 } })
      .then(setCost)
      .catch(() => setCost(null));
  }, [client, chatId, status]);
  if (!cost || cost.priced_message_count + cost.unpriced_message_count === 0) return null;
  return (
    <span className="badge badge-cost" title={tooltip(cost)}>
      <span className="visually-hidden">Cost </span>
      {formatUsd(cost.total_cost_usd)}
    </span>
  );
}

export function UserCost({ client, version }: { client: ChatdClient; version: number }) {
  const [cost, setCost] = useState<Totals | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new `version` (a chat changed) reloads it
  useEffect(() => {
    void client
      .getUserCostSummary({ user: "me", query: { limit: 1 } })
      .then(setCost)
      .catch(() => setCost(null));
  }, [client, version]);
  if (!cost) return null;
  return (
    <p className="muted user-cost" title={tooltip(cost)}>
      Last 30 days: <strong>{formatUsd(cost.total_cost_usd)}</strong>
    </p>
  );
}
