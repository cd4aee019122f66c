/** A list the settings page shows and changes: its items, the last error, and `act` (a change, then a reload). */
import { useCallback, useEffect, useState } from "react";
import { ChatdError } from "../../client/src/index";

export const describeError = (err: unknown) => (err instanceof ChatdError ? `${err.message} ${err.detail ?? ""}`.trim() : String(err));

export interface Listed<T> {
  items: T[] | null;
  error: string | null;
  /** Runs a change; its error is shown; the list is read again either way. */
  act(work: () => Promise<unknown>): Promise<void>;
}

/** `load` must keep its identity between renders (useCallback). */
export function useListed<T>(load: () => Promise<T[]>): Listed<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    load()
      .then(setItems)
      .catch((err: unknown) => setError(describeError(err)));
  }, [load]);
  useEffect(reload, [reload]);
  const act = useCallback(
    async (work: () => Promise<unknown>) => {
      setError(null);
      try {
        await work();
      } catch (err) {
        setError(describeError(err));
      }
      reload();
    },
    [reload],
  );
  return { items, error, act };
}
