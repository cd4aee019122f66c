/**
 * The chat's last turns as the server traced them (GET /chats/{chat}/turns): one row per turn with
 * its outcome and duration, and a bar per stage placed on the turn's own time axis, so where a
 * turn's time went can be read at a glance. Read again when the chat's status or history moves.
 */
import { useCallback, useEffect, useState } from "react";
import type { ChatdClient } from "../../client/src/index";
import { DebugRunsSwitch, TurnDebugRuns } from "./debug-runs";

type Turn = Awaited<ReturnType<ChatdClient["listTurns"]>>[number];

/** Stages shown as bars, outermost first; the rest are in the turn's trace. */
const SHOWN = ["acquisition", "prepare", "stream", "time_to_first_token", "tool_call", "retry_backoff", "compaction", "commit"];

/** A turn is logged in the chat's object just after its last commit: read once more this long after a change. */
const TURN_LOG_SETTLE_MS = 1_500;

export function TurnTimeline({
  client,
  chatId,
  status,
  historyVersion,
}: {
  client: ChatdClient;
  chatId: string;
  status: string | null;
  /** The history the stream has seen: a quick turn can run and end between two syncs with no status change. */
  historyVersion: number;
}) {
  const [turns, setTurns] = useState<Turn[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Whether the chat's turns may have debug runs to show (its switch, or the deployment's "all").
  const [debugShown, setDebugShown] = useState(false);
  // The turns whose debug runs are shown: read when opened, not for every turn listed.
  const [debugOpen, setDebugOpenSet] = useState<ReadonlySet<string>>(new Set());
  const setDebugOpen = (traceId: string, open: boolean) =>
    setDebugOpenSet((shown) => {
      const next = new Set(shown);
      if (open) next.add(traceId);
      else next.delete(traceId);
      return next;
    });
  const onDebugSettings = useCallback((s: { enabled: boolean; mode: string }) => setDebugShown(s.enabled || s.mode === "all"), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a status or history change is when a turn may have ended
  useEffect(() => {
    const read = () =>
      client
        .listTurns({ chat: chatId, query: { limit: 10 } })
        .then((t) => {
          setTurns(t);
          setError(null);
        })
        .catch((err: unknown) => setError(String(err)));
    void read();
    const again = setTimeout(() => void read(), TURN_LOG_SETTLE_MS);
    return () => clearTimeout(again);
  }, [client, chatId, status, historyVersion]);

  const debugSwitch = <DebugRunsSwitch client={client} chatId={chatId} onChange={onDebugSettings} />;
  if (error) return <p className="error">{error}</p>;
  if (!turns) return <p className="muted">Loading turns…</p>;
  if (turns.length === 0)
    return (
      <>
        {debugSwitch}
        <p className="muted">No turns yet.</p>
      </>
    );
  return (
    <section className="turns" aria-label="Turn timeline">
      <h3>Last turns</h3>
      {debugSwitch}
      <ol>
        {turns.map((turn) => (
          <li key={turn.trace_id} className={`turn turn-${turn.outcome}`}>
            <div className="turn-head">
              <span className="turn-outcome">{turn.outcome}</span> {Math.round(turn.duration_ms)} ms
              <span className="muted"> · {new Date(turn.started_at).toLocaleTimeString()}</span>
              {turn.error && <span className="error"> · {turn.error}</span>}
            </div>
            <ul className="stages">
              {turn.stages
                .filter((s) => SHOWN.includes(s.name))
                .sort((a, b) => a.offset_ms - b.offset_ms)
                .map((s) => (
                  <li key={s.span_id} className="stage" title={`${s.name}: ${Math.round(s.duration_ms)} ms`}>
                    <span className="stage-name">{s.name}</span>
                    <span className="stage-track">
                      <span
                        className={`stage-bar${s.error ? " stage-error" : ""}`}
                        style={{
                          left: `${percent(s.offset_ms, turn.duration_ms)}%`,
                          width: `${Math.max(0.5, percent(s.duration_ms, turn.duration_ms))}%`,
                        }}
                      />
                    </span>
                    <span className="stage-ms">{Math.round(s.duration_ms)} ms</span>
                  </li>
                ))}
            </ul>
            {debugShown && (
              <details className="turn-debug" onToggle={(e) => setDebugOpen(turn.trace_id, e.currentTarget.open)}>
                <summary>Debug runs</summary>
                {debugOpen.has(turn.trace_id) && <TurnDebugRuns client={client} chatId={chatId} traceId={turn.trace_id} refresh={turns} />}
              </details>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function percent(part: number, whole: number): number {
  return whole <= 0 ? 0 : Math.min(100, Math.max(0, (part / whole) * 100));
}
