/**
 * The routes not promoted to /api/v2 (spec "HTTP endpoints": registerExperimentalChatRoutes): they
 * answer only under /api/experimental, may change without notice, and have an OpenAPI document
 * of their own (`GET /api/experimental/openapi.json`). Today: debug runs (docs/debug-runs.md).
 */
import { notFound, onError } from "./http/errors";
import { requestLog } from "./http/request-log";
import { createRouter } from "./http/router";
import { debugRuns } from "./routes/debug-runs";
import { OPENAPI_INFO } from "./routes/openapi";

export const EXPERIMENTAL_BASE = "/api/experimental";

export const experimentalApp = createRouter().basePath(EXPERIMENTAL_BASE);

experimentalApp.use("*", requestLog);
experimentalApp.route("/chats", debugRuns);
experimentalApp.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
experimentalApp.openAPIRegistry.registerComponent("securitySchemes", "sessionToken", {
  type: "apiKey",
  in: "header",
  name: "Coder-Session-Token",
});
experimentalApp.doc31("/openapi.json", {
  openapi: "3.1.0",
  info: { ...OPENAPI_INFO, title: `${OPENAPI_INFO.title} (experimental)` },
  security: [{ bearer: [] }, { sessionToken: [] }],
});
experimentalApp.notFound(notFound);
experimentalApp.onError(onError);
