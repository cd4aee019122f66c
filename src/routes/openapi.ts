/**
 * `GET /api/v2/openapi.json` (OpenAPI 3.1, generated from the routes) and `GET /api/v2/docs`,
 * a dependency-free page listing every operation (no CDN: it must work offline too).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Schema } from "hono";
import type { AppEnv } from "../http/app-env";

export const OPENAPI_INFO = {
  title: "chatd-edge API",
  version: "0.1.0",
  description: "A durable, multi-user LLM chat agent backend on Cloudflare Workers, Durable Objects and Postgres.",
};

export function openapiDocs<S extends Schema>(app: OpenAPIHono<AppEnv, S, "/api/v2">): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "sessionToken", { type: "apiKey", in: "header", name: "Coder-Session-Token" });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: OPENAPI_INFO,
    security: [{ bearer: [] }, { sessionToken: [] }],
  });
  app.get("/docs", (c) => c.html(DOCS_PAGE));
}

// Fetches the document and renders one row per operation; kept tiny on purpose.
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatd-edge API</title>
<style>body{font:14px system-ui;margin:2rem;max-width:70rem}code{font-weight:600}td{padding:.2rem .6rem;vertical-align:top}</style>
</head><body><h1>chatd-edge API</h1><p>Machine-readable: <a href="openapi.json">openapi.json</a></p>
<table id="ops"></table>
<script>
fetch("openapi.json").then(r => r.json()).then(doc => {
  const rows = [];
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops))
    rows.push("<tr><td><code>" + method.toUpperCase() + "</code></td><td><code>" + path + "</code></td><td>" + (op.summary || "") + "</td></tr>");
  document.getElementById("ops").innerHTML = rows.join("");
});
</script></body></html>`;
