/**
 * A slow compaction model for a deployment: a provider in front of the fake model that holds each
 * request for `delayMs` before passing it on, made the organization's compaction override. Summary
 * calls are instant otherwise, and a kill could hardly land while one is in flight.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { inject } from "vitest";
import { createModelConfig } from "../../../src/model-configs/configs";
import { createProvider } from "../../../src/model-configs/providers";
import { setModelOverride } from "../../../src/model-configs/model-overrides";
import type { Deployment } from "./deployment";
import { testKeys } from "../../support/test-keys";

export async function slowSummarizer(d: Deployment, delayMs: number): Promise<{ close(): Promise<void>; requests(): number }> {
  const upstream = inject("fakeModelUrl");
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests += 1;
      setTimeout(() => {
        fetch(`${upstream}${req.url}`, {
          method: req.method,
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          body: Buffer.concat(chunks),
        })
          .then((answer) => {
            res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
            if (answer.body) Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream).pipe(res);
            else res.end();
          })
          .catch(() => res.destroy());
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { rows } = await d.own.pool.query<{ id: string }>("SELECT id FROM organizations LIMIT 1");
  const orgId = rows[0]!.id;
  const provider = await createProvider(
    d.own.db,
    {
      type: "openai-compatible",
      name: "slow",
      baseUrl: `${url}/v1`,
      apiKey: "x",
      enabled: true,
    },
    testKeys,
  );
  const config = await createModelConfig(d.own.db, orgId, { providerId: provider.id, model: "fake", isDefault: false }, new Date());
  await setModelOverride(d.own.db, orgId, "compaction", config.id);
  return {
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
