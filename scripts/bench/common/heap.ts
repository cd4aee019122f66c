/**
 * The worker isolate's V8 heap, read over the DevTools protocol from wrangler's inspector proxy
 * (`Runtime.getHeapUsage`). Only for workers started with the inspector on (memory.ts --heap).
 */
import WebSocket from "ws";

const GC_TIMEOUT_MS = 3000;

export interface HeapReader {
  /** usedSize and totalSize of the isolate's JS heap, in MiB. */
  read(): Promise<{ usedMiB: number; totalMiB: number }>;
  /** A full GC (HeapProfiler.collectGarbage), so that the next read counts live objects only. */
  collectGarbage(): Promise<void>;
  close(): void;
}

export async function openHeapReader(url: string): Promise<HeapReader> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let nextId = 1;
  const pending = new Map<number, (result: Record<string, number>) => void>();
  ws.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: Record<string, number> };
    if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
    if (message.id !== undefined) pending.delete(message.id);
  });
  const call = (method: string) =>
    new Promise<Record<string, number>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method }), (err) => err && reject(err));
    });
  return {
    async read() {
      const r = await call("Runtime.getHeapUsage");
      return { usedMiB: (r.usedSize ?? Number.NaN) / 2 ** 20, totalMiB: (r.totalSize ?? Number.NaN) / 2 ** 20 };
    },
    async collectGarbage() {
      // Some isolates never answer (seen with the relay baseline): best effort, bounded.
      await Promise.race([call("HeapProfiler.collectGarbage"), new Promise((resolve) => setTimeout(resolve, GC_TIMEOUT_MS))]);
    },
    close: () => ws.terminate(),
  };
}
