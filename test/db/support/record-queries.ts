/**
 * What a test sees of the round trips: the text of every query sent on a connection taken with
 * `await pool.connect()` (every transaction's), in order. A query with BEGIN or COMMIT in its text
 * shares their round trip.
 */
import type { Pool } from "@neondatabase/serverless";

export function recordQueries(pool: Pool): { sent: string[]; stop(): void } {
  const sent: string[] = [];
  const connect = pool.connect.bind(pool);
  // pool.query takes its connection through connect's callback form: those are not recorded.
  const patched = async (callback?: unknown) => {
    if (typeof callback === "function") return connect(callback as never);
    const client = await connect();
    const query = client.query.bind(client);
    client.query = ((text: string, values?: unknown[]) => {
      sent.push(text);
      return query(text, values);
    }) as typeof client.query;
    const release = client.release.bind(client);
    client.release = ((err?: Error | boolean) => {
      client.query = query as typeof client.query;
      client.release = release;
      return release(err);
    }) as typeof client.release;
    return client;
  };
  (pool as { connect: unknown }).connect = patched;
  return { sent, stop: () => ((pool as { connect: unknown }).connect = connect) };
}
