/**
 * Debug runs in the turn view (docs/debug-runs.md), from the experimental routes under
 * /api/experimental (not part of the SDK's /api/v2 operations): the chat's switch, and per turn the
 * model requests it made, each opened to show what was sent and what came back, as the server
 * stored it (secrets redacted, cut to the deployment's cap).
 */
import { useCallback, useEffect, useState } from "react";
import type { z } from "zod";
import { ChatdError, type ChatdClient } from "../../client/src/index";
import type { DebugRunSchema, DebugRunSummarySchema, DebugSettingsSchema } from "../../src/routes/debug-run-schemas";

type Settings = z.output<typeof DebugSettingsSchema>;
type RunSummary = z.output<typeof DebugRunSummarySchema>;
type Run = z.output<typeof DebugRunSchema>;

/** A request to the experimental API, with the client's credentials (its token, else the session cookie). */
async function experimental<T>(client: ChatdClient, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const base = client.apiBase.replace(/\/api\/v2$/, "/api/experimental");
  const headers: Record<string, string> = {};
  if (client.token) headers.authorization = `Bearer ${client.token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers,
    credentials: "same-origin",
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  if (!res.ok) throw await ChatdError.fromResponse(res);
  return (await res.json()) as T;
}

/** The chat's switch: whether its model calls are recorded, and under what the deployment allows. */
export function DebugRunsSwitch({ client, chatId, onChange }: { client: ChatdClient; chatId: string; onChange(s: Settings): void }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    experimental<Settings>(client, `/chats/${chatId}/debug`)
      .then((s) => {
        setSettings(s);
        onChange(s);
      })
      .catch((err: unknown) => setError(String(err)));
  }, [client, chatId, onChange]);

  if (error) return <p className="error">{error}</p>;
  if (!settings) return null;
  // Shown at once; the answer (or the refusal, which puts it back) follows.
  const toggle = (enabled: boolean) => {
    const before = settings;
    setSettings({ ...settings, enabled });
    return experimental<Settings>(client, `/chats/${chatId}/debug`, { method: "PUT", body: { enabled } })
      .then((s) => {
        setSettings(s);
        setError(null);
        onChange(s);
      })
      .catch((err: unknown) => {
        setSettings(before);
        setError(String(err));
      });
  };
  return (
    <label className="debug-switch">
      <input
        type="checkbox"
        checked={settings.enabled}
        disabled={settings.mode === "off"}
        onChange={(e) => void toggle(e.target.checked)}
      />{" "}
      Record debug runs
      <span className="muted">
        {settings.mode === "off"
          ? " (off for this deployment)"
          : settings.mode === "all"
            ? " (every chat records: on for this deployment)"
            : ` (kept ${settings.retention_hours} h, ${settings.runs_per_chat} per chat; off deletes them)`}
      </span>
    </label>
  );
}

/** One turn's runs, read when shown; `refresh` changes when the turn list was read again. */
/** How many times an empty list of a turn's runs is read again, a second apart. */
const RUN_READ_RETRIES = 15;

export function TurnDebugRuns({
  client,
  chatId,
  traceId,
  refresh,
}: {
  client: ChatdClient;
  chatId: string;
  traceId: string;
  refresh: unknown;
}) {
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [open, setOpen] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refresh` is when the turn's runs may have been written
  useEffect(() => {
    let stopped = false;
    // A turn's runs are written just after its calls end: a turn that just ended may have none yet
    // (on a loaded server, for some seconds), so an empty answer is asked again, once a second.
    const read = (triesLeft: number) =>
      experimental<RunSummary[]>(client, `/chats/${chatId}/debug/runs?trace_id=${encodeURIComponent(traceId)}&limit=20`)
        .then((found) => {
          if (stopped) return;
          setRuns(found);
          if (found.length === 0 && triesLeft > 0) setTimeout(() => void read(triesLeft - 1), 1000);
        })
        .catch((err: unknown) => setError(String(err)));
    void read(RUN_READ_RETRIES);
    return () => {
      stopped = true;
    };
  }, [client, chatId, traceId, refresh]);
  const show = useCallback(
    (id: string) =>
      experimental<Run>(client, `/chats/${chatId}/debug/runs/${id}`)
        .then(setOpen)
        .catch((err: unknown) => setError(String(err))),
    [client, chatId],
  );

  if (error) return <p className="error">{error}</p>;
  if (!runs) return <p className="muted">Loading debug runs…</p>;
  if (runs.length === 0) return <p className="muted">No debug runs for this turn.</p>;
  return (
    <div className="debug-runs">
      <ul>
        {runs
          .slice()
          .reverse()
          .map((run) => (
            <li key={run.id}>
              <button type="button" className="link" onClick={() => void show(run.id)} aria-expanded={open?.id === run.id}>
                {run.kind} · {run.provider}/{run.model} · {run.status ?? "no response"} · {run.duration_ms} ms
                {run.finish_reason ? ` · ${run.finish_reason}` : ""}
                {run.error ? ` · ${run.error}` : ""}
              </button>
            </li>
          ))}
      </ul>
      {open && (
        <section className="debug-run" aria-label="Debug run">
          <h4>
            Request{" "}
            <span className="muted">
              {open.request.method} {open.request.url}
            </span>
            {open.request.body_truncated && <span className="muted"> (cut: {open.request.body_bytes} bytes sent)</span>}
          </h4>
          <pre>{JSON.stringify({ headers: open.request.headers, body: open.request.body }, null, 2)}</pre>
          <h4>
            Response <span className="muted">{open.response ? `HTTP ${open.response.status}` : "none"}</span>
            {open.response?.body_truncated && <span className="muted"> (cut: {open.response.body_bytes} bytes received)</span>}
          </h4>
          {open.response && <pre>{open.response.body}</pre>}
          {open.outcome && (
            <>
              <h4>Outcome</h4>
              <pre>{JSON.stringify(open.outcome, null, 2)}</pre>
            </>
          )}
        </section>
      )}
    </div>
  );
}
