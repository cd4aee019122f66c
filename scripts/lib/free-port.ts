import { createServer } from "node:net";

/** Asks the kernel for a free TCP port on loopback (bind to 0, read it back, release it). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("could not read the port of a probe socket"));
      });
    });
  });
}
