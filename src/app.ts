/**
 * The Hono app: middleware, one router per resource, one error handler, and the OpenAPI
 * document generated from the routes' own zod schemas.
 */
import { createRouter } from "./http/router";
import { notFound, onError } from "./http/errors";
import { health } from "./routes/health";
import { openapiDocs } from "./routes/openapi";

export const app = createRouter().basePath("/api/v2");

app.route("/health", health);

openapiDocs(app);
app.notFound(notFound);
app.onError(onError);
